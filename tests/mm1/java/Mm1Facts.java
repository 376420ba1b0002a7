// Asks Kafka's own classes (from a distribution's libs/) what the Python side of the MM1 migration computes:
//   regex<TAB><raw>                         -> MirrorMaker 1's compiled topic regex (TopicFilter.IncludeList)
//   key<TAB><alias><TAB><topic><TAB><p><TAB><n> -> Connect's offsets-topic key (MirrorUtils.wrapPartition through
//                                              JsonConverter, schemas.enable=false), its value for offset p,
//                                              and the partition Kafka's default partitioner picks of n
// One request per stdin line, one answer per stdout line. Run: java -cp '<kafka>/libs/*' Mm1Facts.java
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Collections;
import java.util.Map;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.utils.Utils;
import org.apache.kafka.connect.json.JsonConverter;
import org.apache.kafka.server.util.TopicFilter;

public class Mm1Facts {
    public static void main(String[] args) throws Exception {
        JsonConverter keys = new JsonConverter();
        keys.configure(Collections.singletonMap("schemas.enable", "false"), true);
        JsonConverter values = new JsonConverter();
        values.configure(Collections.singletonMap("schemas.enable", "false"), false);
        Class<?> utils = Class.forName("org.apache.kafka.connect.mirror.MirrorUtils");
        Method wrap = utils.getDeclaredMethod("wrapPartition", TopicPartition.class, String.class);
        wrap.setAccessible(true);
        Method wrapOffset = utils.getDeclaredMethod("wrapOffset", long.class);
        wrapOffset.setAccessible(true);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {
            String[] f = line.split("\t", -1);
            if (f[0].equals("regex")) {
                try {
                    System.out.println(new TopicFilter.IncludeList(f[1]).getPattern().pattern());
                } catch (RuntimeException e) {
                    System.out.println("INVALID");
                }
            } else {
                int partition = Integer.parseInt(f[3]);
                Object wrapped = wrap.invoke(null, new TopicPartition(f[2], partition), f[1]);
                byte[] key = keys.fromConnectData("offsets", null, Arrays.asList("MirrorSourceConnector", wrapped));
                byte[] value = values.fromConnectData("offsets", null, wrapOffset.invoke(null, (long) partition));
                int n = Integer.parseInt(f[4]);
                System.out.println(new String(key, StandardCharsets.UTF_8) + "\t" + new String(value, StandardCharsets.UTF_8)
                        + "\t" + (Utils.toPositive(Utils.murmur2(key)) % n));
            }
        }
    }
}
