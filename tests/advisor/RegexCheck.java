// Prints OK or ERR <description> for each line of stdin compiled with java.util.regex.Pattern.
// Used by test_javaregex.py to check mm2_core.formats.javaregex against the JDK itself.
import java.io.*;
import java.util.regex.*;
import java.nio.charset.StandardCharsets;
public class RegexCheck {
  public static void main(String[] a) throws Exception {
    BufferedReader r = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    String line;
    while ((line = r.readLine()) != null) {
      try { Pattern.compile(line); System.out.println("OK"); }
      catch (PatternSyntaxException e) { System.out.println("ERR " + e.getDescription()); }
    }
  }
}
