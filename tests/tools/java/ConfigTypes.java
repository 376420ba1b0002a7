import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.common.config.ConfigDef;

/** Prints "<table> <name> <TYPE> <validator>" for the ConfigDefs MM2 passes settings to. */
public class ConfigTypes {
    static void dump(String table, ConfigDef def) {
        for (Map.Entry<String, ConfigDef.ConfigKey> e : new TreeMap<>(def.configKeys()).entrySet()) {
            ConfigDef.ConfigKey key = e.getValue();
            String validator = key.validator == null ? "-" : key.validator.toString().replace(' ', '_');
            System.out.println(table + " " + e.getKey() + " " + key.type + " " + validator);
        }
    }
    static ConfigDef field(String cls, String name) throws Exception {
        java.lang.reflect.Field f = Class.forName(cls).getDeclaredField(name);
        f.setAccessible(true);
        return (ConfigDef) f.get(null);
    }
    static ConfigDef distributed() throws Exception {
        Class<?> crypto = Class.forName("org.apache.kafka.connect.runtime.distributed.Crypto");
        java.lang.reflect.Method m = Class.forName("org.apache.kafka.connect.runtime.distributed.DistributedConfig")
            .getDeclaredMethod("config", crypto);
        m.setAccessible(true);
        Object system = crypto.getField("SYSTEM").get(null);
        return (ConfigDef) m.invoke(null, system);
    }
    public static void main(String[] args) throws Exception {
        dump("producer", org.apache.kafka.clients.producer.ProducerConfig.configDef());
        dump("consumer", org.apache.kafka.clients.consumer.ConsumerConfig.configDef());
        dump("admin", org.apache.kafka.clients.admin.AdminClientConfig.configDef());
        dump("worker", distributed());
        dump("connector", org.apache.kafka.connect.runtime.SourceConnectorConfig.configDef());
        dump("mirror-source", field("org.apache.kafka.connect.mirror.MirrorSourceConfig", "CONNECTOR_CONFIG_DEF"));
        dump("mirror-checkpoint", field("org.apache.kafka.connect.mirror.MirrorCheckpointConfig", "CONNECTOR_CONFIG_DEF"));
        dump("mirror-heartbeat", field("org.apache.kafka.connect.mirror.MirrorHeartbeatConfig", "CONNECTOR_CONFIG_DEF"));
    }
}
