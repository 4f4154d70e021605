package dev.ledger.examples.readme;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.common.io.MoreFiles;
import com.google.common.io.RecursiveDeleteOption;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README's code cannot rot: every Java block in it is exactly a marked region of a class
 * in this package ({@code // README:begin NAME} to {@code // README:end}), announced in the
 * README by {@code <!-- README:NAME ... -->}; those classes run here and print what the
 * README's output blocks ({@code <!-- README:NAME-output -->}) say; and the Maven coordinates
 * it gives are those of this build.
 */
class ReadmeTest {
  /** The test runs in the module directory. */
  private static final Path README = Path.of("..", "README.md");
  private static final Path SOURCES = Path.of("src", "main", "java", "dev", "ledger", "examples",
      "readme");
  private static final Pattern MARKER = Pattern.compile("^<!-- README:([a-z0-9-]+)(?: .*)? -->$");
  private static final Pattern BEGIN = Pattern.compile("^ *// README:begin ([a-z0-9-]+)$");
  private static final Pattern END = Pattern.compile("^ *// README:end$");

  /**
   * Sections whose Java blocks do not come from compiled classes yet. Each entry must still
   * have such a block: once it has none, the test asks for the entry to go.
   */
  private static final Set<String> NOT_YET_COMPILED = Set.of("Testing your code with ledger");

  @TempDir Path dir;

  @Test
  void theQuickStartPrintsWhatTheReadmeSays() throws Exception {
    List<String> printed = run(() -> QuickStart.main(new String[] {dir.toString()}));

    List<String> expected = new ArrayList<>(readme().outputs.get("quickstart-output"));
    assertThat(expected.get(0)).startsWith("store in ");
    expected.set(0, "store in " + dir);
    assertThat(printed).containsExactlyElementsOf(expected);
  }

  @Test
  void theArtifactsQuickStartPrintsWhatTheReadmeSays() throws Exception {
    List<String> printed = run(() -> ArtifactsQuickStart.main(new String[] {dir.toString()}));

    assertThat(printed).containsExactlyElementsOf(readme().outputs.get("artifacts-output"));
  }

  @Test
  void theFollowQuickStartPrintsWhatTheReadmeSays() throws Exception {
    List<String> printed = run(() -> FollowQuickStart.main(new String[] {dir.toString()}));

    assertThat(printed).containsExactlyElementsOf(readme().outputs.get("follow-output"));
  }

  @Test
  void theMetricsQuickStartPrintsWhatTheReadmeSays() throws Exception {
    List<String> printed = run(() -> MetricsQuickStart.main(new String[] {dir.toString()}));

    assertThat(printed).containsExactlyElementsOf(readme().outputs.get("metrics-output"));
  }

  @Test
  void theCollectionsQuickStartPrintsWhatTheReadmeSays() throws Exception {
    List<String> printed = run(() -> CollectionsQuickStart.main(new String[] {dir.toString()}));

    assertThat(printed).containsExactlyElementsOf(readme().outputs.get("collections-output"));
  }

  @Test
  void theLifecycleQuickStartPrintsWhatTheReadmeSays() throws Exception {
    List<String> printed = run(() -> LifecycleQuickStart.main(new String[] {dir.toString()}));

    assertThat(printed).containsExactlyElementsOf(readme().outputs.get("lifecycle-output"));
  }

  @Test
  void theRegistryQuickStartPrintsWhatTheReadmeSays() throws Exception {
    List<String> printed = run(() -> RegistryQuickStart.main(new String[] {dir.toString()}));

    assertThat(printed).containsExactlyElementsOf(readme().outputs.get("registry-output"));
  }

  @Test
  void theQuickStartRunsWithoutArgumentsInANewDirectory() throws Exception {
    List<String> printed = run(() -> QuickStart.main(new String[0]));

    assertThat(printed.get(0)).startsWith("store in ");
    Path made = Path.of(printed.get(0).substring("store in ".length()));
    try {
      assertThat(made.resolve("store.json")).isRegularFile();
    } finally {
      MoreFiles.deleteRecursively(made, RecursiveDeleteOption.ALLOW_INSECURE);
    }
    assertThat(printed.subList(1, printed.size()))
        .containsExactlyElementsOf(readme().outputs.get("quickstart-output")
            .subList(1, printed.size()));
  }

  @Test
  void everyJavaBlockOfTheReadmeIsAMarkedRegionOfACompiledClass() throws IOException {
    Map<String, String> regions = regions();
    Readme readme = readme();

    assertThat(regions).containsKeys("quickstart", "artifacts", "follow");
    assertThat(readme.blocks.keySet()).as("marked Java blocks of README.md")
        .containsExactlyInAnyOrderElementsOf(regions.keySet());
    regions.forEach((name, code) -> assertThat(readme.blocks.get(name))
        .as("README block %s, which must be the region '%s' of %s", name, name, SOURCES)
        .isEqualTo(code));
    assertThat(readme.unmarked).as("Java blocks of README.md without a <!-- README:NAME -->"
        + " marker, by section").allSatisfy((section, count) ->
            assertThat(NOT_YET_COMPILED).as("sections allowed unmarked blocks").contains(section));
    assertThat(NOT_YET_COMPILED).allSatisfy(section -> assertThat(readme.unmarked)
        .as("'%s' has no unmarked Java block any more: remove it from NOT_YET_COMPILED",
            section)
        .containsKey(section));
  }

  @Test
  void theCoordinatesAreThoseOfThisBuild() throws IOException {
    String pom = Files.readString(Path.of("..", "pom.xml"));
    String version = first(pom, "<artifactId>ledger-parent</artifactId>\\s*<version>([^<]+)<");
    String slf4j = first(pom, "<slf4j.version>([^<]+)<");
    String xml = String.join("\n", readme().xml);

    Matcher dependency = Pattern.compile("<groupId>([^<]+)</groupId>\\s*<artifactId>([^<]+)"
        + "</artifactId>\\s*<version>([^<]+)</version>").matcher(xml);
    Map<String, String> versions = new TreeMap<>();
    while (dependency.find()) {
      versions.put(dependency.group(1) + ":" + dependency.group(2), dependency.group(3));
    }
    assertThat(versions).containsEntry("dev.ledger:ledger-core", version)
        .containsEntry("dev.ledger:ledger-artifacts", version)
        .containsEntry("org.slf4j:slf4j-simple", slf4j);
    versions.keySet().stream().filter(k -> k.startsWith("dev.ledger:")).forEach(k ->
        assertThat(pom).as("a module of the build").contains(
            "<module>" + k.substring("dev.ledger:".length()) + "</module>"));
    assertThat(Files.readString(README)).contains("mvn install -DskipTests");
  }

  private static String first(String text, String regex) {
    Matcher m = Pattern.compile(regex).matcher(text);
    assertThat(m.find()).as("%s in pom.xml", regex).isTrue();
    return m.group(1);
  }

  /** Something that prints on standard output. */
  @FunctionalInterface
  private interface Program {
    void run() throws Exception;
  }

  private static List<String> run(Program program) throws Exception {
    PrintStream original = System.out;
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (PrintStream capture = new PrintStream(bytes, true, StandardCharsets.UTF_8)) {
      System.setOut(capture);
      program.run();
    } finally {
      System.setOut(original);
    }
    return bytes.toString(StandardCharsets.UTF_8).lines().toList();
  }

  /** The marked regions of the classes in {@link #SOURCES}, by name. */
  private static Map<String, String> regions() throws IOException {
    Map<String, String> regions = new TreeMap<>();
    List<Path> files;
    try (Stream<Path> all = Files.list(SOURCES)) {
      files = all.filter(p -> p.toString().endsWith(".java")).sorted().toList();
    }
    for (Path file : files) {
      String name = null;
      int indent = 0;
      StringBuilder code = new StringBuilder();
      for (String line : Files.readAllLines(file)) {
        Matcher begin = BEGIN.matcher(line);
        if (begin.matches()) {
          assertThat(name).as("nested region in %s", file).isNull();
          name = begin.group(1);
          // A region inside a method is shown without the method's indentation.
          indent = line.indexOf('/');
          code.setLength(0);
        } else if (END.matcher(line).matches()) {
          assertThat(name).as("README:end without begin in %s", file).isNotNull();
          assertThat(regions.put(name, code.toString())).as("region %s twice", name).isNull();
          name = null;
        } else if (name != null) {
          assertThat(line.isBlank() || line.substring(0, Math.min(indent, line.length()))
              .isBlank()).as("line of region %s indented less than its marker: %s", name, line)
              .isTrue();
          code.append(line.length() > indent ? line.substring(indent) : "").append('\n');
        }
      }
      assertThat(name).as("region %s of %s never ends", name, file).isNull();
    }
    return regions;
  }

  /** What the test reads from README.md. */
  private static final class Readme {
    final Map<String, String> blocks = new LinkedHashMap<>();
    final Map<String, List<String>> outputs = new LinkedHashMap<>();
    final Map<String, Integer> unmarked = new TreeMap<>();
    final List<String> xml = new ArrayList<>();
  }

  /**
   * The lines of an output block of the README, for the tests of snippets that need a server.
   *
   * @param name the block's marker name, as {@code postgres-artifacts-output}
   * @return its lines
   * @throws IOException if the README cannot be read
   */
  static List<String> output(String name) throws IOException {
    List<String> lines = readme().outputs.get(name);
    assertThat(lines).as("README output block %s", name).isNotNull();
    return lines;
  }

  private static Readme readme() throws IOException {
    Readme readme = new Readme();
    List<String> lines = Files.readAllLines(README);
    String section = "";
    String marker = null;
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i);
      if (line.startsWith("## ")) {
        section = line.substring(3);
      }
      Matcher m = MARKER.matcher(line);
      if (m.matches()) {
        marker = m.group(1);
        continue;
      }
      if (!line.strip().startsWith("```")) {
        if (!line.isBlank()) {
          marker = null; // a marker announces the block right below it
        }
        continue;
      }
      String fence = line.strip(); // fences may be indented, inside a list item
      List<String> body = new ArrayList<>();
      for (i++; !lines.get(i).strip().equals("```"); i++) {
        body.add(lines.get(i));
      }
      if (fence.equals("```java")) {
        if (marker == null) {
          readme.unmarked.merge(section, 1, Integer::sum);
        } else {
          readme.blocks.put(marker, String.join("\n", body) + "\n");
        }
      } else if (fence.equals("```xml")) {
        readme.xml.addAll(body);
      } else if (marker != null) {
        readme.outputs.put(marker, body);
      }
      marker = null;
    }
    return readme;
  }
}
