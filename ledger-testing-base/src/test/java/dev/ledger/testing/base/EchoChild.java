package dev.ledger.testing.base;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;

/**
 * Child main for {@link ChildJvmTest}: prints {@code READY} and the seed property, then obeys
 * lines on stdin: {@code echo TEXT} prints TEXT, {@code exit N} exits with N, {@code watch}
 * halts when stdin ends ({@link ChildJvm#exitWhenParentGoes()}), {@code hang} blocks on
 * stdin forever, {@code burst N FILE} prints the lines {@code line 0} to {@code line N-1} in
 * one write, then creates FILE and blocks forever.
 */
public final class EchoChild {
  private EchoChild() {}

  /**
   * Runs the child.
   *
   * @param args unused
   * @throws Exception never on purpose
   */
  public static void main(String[] args) throws Exception {
    System.out.println("READY");
    System.out.println("seed " + System.getProperty(TestSeed.PROPERTY));
    System.out.flush();
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in,
        StandardCharsets.UTF_8));
    String line;
    while ((line = in.readLine()) != null) {
      if (line.startsWith("echo ")) {
        System.out.println(line.substring(5));
        System.out.flush();
      } else if (line.startsWith("exit ")) {
        System.exit(Integer.parseInt(line.substring(5)));
      } else if (line.equals("watch")) {
        System.out.println("WATCHING");
        System.out.flush();
        ChildJvm.exitWhenParentGoes();
        new java.util.concurrent.CountDownLatch(1).await();
      } else if (line.startsWith("burst ")) {
        String[] words = line.split(" ", 3);
        StringBuilder burst = new StringBuilder();
        for (int i = 0; i < Integer.parseInt(words[1]); i++) {
          burst.append("line ").append(i).append('\n');
        }
        System.out.print(burst);
        System.out.flush();
        java.nio.file.Files.createFile(java.nio.file.Path.of(words[2]));
        new java.util.concurrent.CountDownLatch(1).await();
      } else if (line.equals("hang")) {
        new java.util.concurrent.CountDownLatch(1).await();
      }
    }
  }
}
