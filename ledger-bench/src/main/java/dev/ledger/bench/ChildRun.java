package dev.ledger.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Runs a measurement in a fresh JVM on this one's class path and reads its answer: the child
 * prints one line {@code result key=value key=value ...} (values without spaces) among any
 * other output. Used where a figure must come from a JVM that has run nothing before (cold
 * starts, a small heap, a cold open).
 */
final class ChildRun {
  private ChildRun() {}

  /**
   * Runs {@code main} with {@code jvmOptions} and {@code args}, waits for it, and returns the
   * pairs of its {@code result} line.
   *
   * @param what names the child in the failure message
   * @param required a key the result must hold
   * @return the values by key, as printed
   * @throws IllegalStateException with the child's whole output if it exits with a non-zero
   *     status or prints no {@code result} line holding {@code required}
   */
  static Map<String, String> result(String what, Class<?> main, List<String> jvmOptions,
      List<String> args, String required) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(jvmOptions);
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(main.getName());
    command.addAll(args);
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    Map<String, String> values = new HashMap<>();
    StringBuilder output = new StringBuilder();
    try (BufferedReader in = new BufferedReader(
        new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
      String line;
      while ((line = in.readLine()) != null) {
        output.append(line).append('\n');
        if (line.startsWith("result ")) {
          for (String pair : line.substring("result ".length()).split(" ")) {
            int eq = pair.indexOf('=');
            if (eq > 0) {
              values.put(pair.substring(0, eq), pair.substring(eq + 1));
            }
          }
        }
      }
    }
    if (process.waitFor() != 0 || !values.containsKey(required)) {
      throw new IllegalStateException(what + " failed:\n" + output);
    }
    return values;
  }

  /** {@code values} with each value parsed as a long. */
  static Map<String, Long> longs(Map<String, String> values) {
    Map<String, Long> out = new HashMap<>();
    values.forEach((k, v) -> out.put(k, Long.parseLong(v)));
    return out;
  }

  /** {@code values} with each value parsed as a double. */
  static Map<String, Double> doubles(Map<String, String> values) {
    Map<String, Double> out = new HashMap<>();
    values.forEach((k, v) -> out.put(k, Double.parseDouble(v)));
    return out;
  }
}
