package dev.ledger.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Stream;
import org.assertj.core.api.AbstractAssert;

/**
 * AssertJ assertions on a directory tree: above all, that it matches a golden tree checked in
 * with the tests, file for file and byte for byte.
 *
 * <pre>{@code
 * import static dev.ledger.testing.DirectoryAssert.assertThatDirectory;
 *
 * assertThatDirectory(storeDir).matchesGolden("golden/orchestrator");
 * }</pre>
 *
 * <p><b>What is compared.</b> Every regular file, by its path relative to the tree's root and
 * its exact bytes. Directories are not compared in themselves, so an empty directory is
 * ignored on both sides (git keeps none; mark golden trees {@code -text} in
 * {@code .gitattributes} so that no checkout rewrites their line endings). Symbolic links are
 * ignored.
 *
 * <p><b>What a failure says.</b> The number of missing, extra and different files; every
 * missing path (in the golden tree, not in the actual one) and extra path; and for each
 * different file the first differing line, with its number and the expected and actual text
 * (a long line is cut to a window around its first differing column). For {@code .json}
 * files it adds the JSON pointer (RFC 6901) of the first differing value, and for
 * {@code .jsonl} (JSON Lines) files the pointer within the first differing line. A binary
 * file gives the offset of its first differing byte.
 *
 * <p><b>Updating.</b> With the system property {@value #UPDATE_PROPERTY}{@code =true}
 * (passed to the test JVM, e.g. {@code mvn test -Dledger.golden.update=true}), the golden
 * tree is not compared but rewritten: every file in it is deleted and every file of the
 * actual tree copied in, and the assertion passes. Review the change like any other diff.
 */
public final class DirectoryAssert extends AbstractAssert<DirectoryAssert, Path> {
  /** The system property that makes {@link #matchesGolden} rewrite the golden tree. */
  public static final String UPDATE_PROPERTY = "ledger.golden.update";

  /** Where {@link #matchesGolden(String)} finds golden trees, from the working directory. */
  public static final Path TEST_RESOURCES = Path.of("src", "test", "resources");

  private DirectoryAssert(Path actual) {
    super(actual, DirectoryAssert.class);
  }

  /**
   * Starts assertions on the directory {@code actual}.
   *
   * @param actual the directory tree under test
   * @return the assertion
   */
  public static DirectoryAssert assertThatDirectory(Path actual) {
    return new DirectoryAssert(actual);
  }

  /**
   * Checks that the tree matches the golden tree {@code src/test/resources/<resource>}, found
   * from the working directory (Maven and Gradle run tests from the module's directory), so
   * that an update rewrites the sources rather than their copy among the compiled test
   * resources. If there is no such directory, a class path resource of that name on the file
   * system is used instead, for comparing only.
   *
   * @param resource the golden tree's path below {@code src/test/resources}, with {@code /}
   * @return this assertion
   * @throws AssertionError if the trees differ, with the differences (see the class comment),
   *     or if no golden tree is found
   * @throws NullPointerException if {@code resource} is null
   * @throws UncheckedIOException if a file cannot be read, or in update mode written
   */
  public DirectoryAssert matchesGolden(String resource) {
    Objects.requireNonNull(resource, "resource");
    Path source = TEST_RESOURCES.resolve(resource);
    if (Files.isDirectory(source) || updating()) {
      return matchesGolden(source);
    }
    URL url = Thread.currentThread().getContextClassLoader().getResource(resource);
    if (url != null && url.getProtocol().equals("file")) {
      try {
        return matchesGolden(Path.of(url.toURI()));
      } catch (URISyntaxException e) {
        throw new IllegalArgumentException("class path resource " + url, e);
      }
    }
    isNotNull();
    failWithMessage("%s", "no golden directory " + source.toAbsolutePath()
        + " and no class path resource '" + resource + "' on the file system; create it with -D"
        + UPDATE_PROPERTY + "=true");
    return this;
  }

  /**
   * Checks that the tree matches the golden tree {@code golden}, or in update mode rewrites
   * {@code golden} with the tree (see the class comment).
   *
   * @param golden the golden directory
   * @return this assertion
   * @throws AssertionError if the trees differ, with the differences (see the class comment),
   *     if the actual tree is not a directory, or if {@code golden} does not exist
   * @throws NullPointerException if {@code golden} is null
   * @throws IllegalArgumentException in update mode, if one tree contains the other
   * @throws UncheckedIOException if a file cannot be read, or in update mode written
   */
  public DirectoryAssert matchesGolden(Path golden) {
    Objects.requireNonNull(golden, "golden");
    isNotNull();
    if (!Files.isDirectory(actual)) {
      failWithMessage("%s", "expected a directory to compare with golden " + golden
          + ", but " + actual + (Files.exists(actual) ? " is not a directory" : " does not exist"));
    }
    if (updating()) {
      rewrite(golden);
      return this;
    }
    if (!Files.isDirectory(golden)) {
      failWithMessage("%s", "golden directory " + golden.toAbsolutePath()
          + " does not exist; create it with -D" + UPDATE_PROPERTY + "=true");
    }
    GoldenDiff diff = GoldenDiff.between(golden, actual);
    if (!diff.isEmpty()) {
      failWithMessage("%s", diff.report(golden, actual) + "If the change is intended, rerun with -D"
          + UPDATE_PROPERTY + "=true to rewrite the golden directory, and review its diff.");
    }
    return this;
  }

  private static boolean updating() {
    return Boolean.getBoolean(UPDATE_PROPERTY);
  }

  private void rewrite(Path golden) {
    Path from = actual.toAbsolutePath().normalize();
    Path to = golden.toAbsolutePath().normalize();
    if (from.startsWith(to) || to.startsWith(from)) {
      throw new IllegalArgumentException("cannot rewrite golden " + to + " from " + from
          + ": one contains the other");
    }
    Map<String, Path> files = GoldenDiff.files(actual);
    try {
      if (Files.exists(golden)) {
        try (Stream<Path> old = Files.walk(golden)) {
          for (Path p : old.sorted(Comparator.reverseOrder()).toList()) {
            Files.delete(p);
          }
        }
      }
      Files.createDirectories(golden);
      for (Map.Entry<String, Path> file : files.entrySet()) {
        Path target = golden.resolve(file.getKey());
        Files.createDirectories(target.getParent());
        // Bytes only: the golden tree gets ordinary permissions, not the store's.
        Files.write(target, Files.readAllBytes(file.getValue()));
      }
    } catch (IOException e) {
      throw new UncheckedIOException("rewriting golden directory " + golden, e);
    }
    System.err.println("golden directory " + to + " rewritten from " + from + " ("
        + files.size() + " files): review the diff");
  }
}
