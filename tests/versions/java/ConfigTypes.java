// Prints "<key> <TYPE>" for every key of the ConfigDefs MM2's properties reach, read from the Kafka jars on the
// class path (run with: java -cp '<kafka>/libs/*' ConfigTypes.java). Classes a version lacks are skipped.
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.util.Map;
import java.util.TreeMap;

public class ConfigTypes {
    static final String[][] DEFS = {
        {"org.apache.kafka.clients.producer.ProducerConfig", "CONFIG"},
        {"org.apache.kafka.clients.consumer.ConsumerConfig", "CONFIG"},
        {"org.apache.kafka.clients.admin.AdminClientConfig", "CONFIG"},
        {"org.apache.kafka.connect.runtime.distributed.DistributedConfig", "CONFIG"},
        {"org.apache.kafka.connect.runtime.ConnectorConfig", "configDef()"},
        {"org.apache.kafka.connect.runtime.SourceConnectorConfig", "configDef()"},
        {"org.apache.kafka.connect.mirror.MirrorMakerConfig", "CONNECTOR_CONFIG_DEF"},
        {"org.apache.kafka.connect.mirror.MirrorConnectorConfig", "CONNECTOR_CONFIG_DEF"},
        {"org.apache.kafka.connect.mirror.MirrorSourceConfig", "CONNECTOR_CONFIG_DEF"},
        {"org.apache.kafka.connect.mirror.MirrorCheckpointConfig", "CONNECTOR_CONFIG_DEF"},
        {"org.apache.kafka.connect.mirror.MirrorHeartbeatConfig", "CONNECTOR_CONFIG_DEF"},
    };

    public static void main(String[] args) throws Exception {
        Map<String, String> out = new TreeMap<>();
        for (String[] def : DEFS) {
            Class<?> cls;
            try { cls = Class.forName(def[0]); } catch (ClassNotFoundException e) { continue; }
            Object configDef;
            try {
                if (def[1].endsWith("()")) {
                    Method m = cls.getDeclaredMethod(def[1].substring(0, def[1].length() - 2));
                    m.setAccessible(true);
                    configDef = m.invoke(null);
                } else {
                    Field f = cls.getDeclaredField(def[1]);
                    f.setAccessible(true);
                    configDef = f.get(null);
                }
            } catch (NoSuchFieldException | NoSuchMethodException e) { continue; }
            Map<?, ?> keys = (Map<?, ?>) configDef.getClass().getMethod("configKeys").invoke(configDef);
            for (Map.Entry<?, ?> e : keys.entrySet()) {
                Object type = e.getValue().getClass().getField("type").get(e.getValue());
                String prev = out.put(e.getKey().toString(), type.toString());
                if (prev != null && !prev.equals(type.toString())) {
                    out.put(e.getKey().toString(), prev + "|" + type);
                }
            }
        }
        for (Map.Entry<String, String> e : out.entrySet()) System.out.println(e.getKey() + " " + e.getValue());
    }
}
