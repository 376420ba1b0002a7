import java.io.BufferedReader;
import java.io.FileInputStream;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.Properties;
import java.util.TreeMap;

/**
 * Loads .properties files exactly as MirrorMaker 2 does (Properties.load(InputStream), ISO-8859-1)
 * and prints each as one line of ASCII JSON {"key": "value", ...}. Reads one path per stdin line,
 * so a test session starts the JVM once.
 */
public class PropsDump {
    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String path;
        while ((path = in.readLine()) != null) {
            Properties props = new Properties();
            try (InputStream stream = new FileInputStream(path)) {
                props.load(stream);
            } catch (Exception e) {
                System.out.println("{\"__error__\": " + quote(e.toString()) + "}");
                System.out.flush();
                continue;
            }
            TreeMap<String, String> sorted = new TreeMap<>();
            for (String name : props.stringPropertyNames()) {
                sorted.put(name, props.getProperty(name));
            }
            StringBuilder out = new StringBuilder("{");
            boolean first = true;
            for (java.util.Map.Entry<String, String> e : sorted.entrySet()) {
                if (!first) out.append(", ");
                first = false;
                out.append(quote(e.getKey())).append(": ").append(quote(e.getValue()));
            }
            System.out.println(out.append("}"));
            System.out.flush();
        }
    }

    private static String quote(String s) {
        StringBuilder b = new StringBuilder("\"");
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '"' || c == '\\') {
                b.append('\\').append(c);
            } else if (c < 0x20 || c > 0x7e) {
                b.append(String.format("\\u%04x", (int) c));
            } else {
                b.append(c);
            }
        }
        return b.append('"').toString();
    }
}
