package dev.ledger.testing;

import static dev.ledger.testing.DirectoryAssert.assertThatDirectory;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Golden directories: each kind of difference, and what its message says. */
class DirectoryAssertTest {
  @TempDir
  Path tmp;

  private Path golden;
  private Path actual;
  private String savedUpdate;

  @BeforeEach
  void trees() throws IOException {
    golden = Files.createDirectory(tmp.resolve("golden"));
    actual = Files.createDirectory(tmp.resolve("actual"));
    savedUpdate = System.clearProperty(DirectoryAssert.UPDATE_PROPERTY);
  }

  @AfterEach
  void restoreUpdateSwitch() {
    if (savedUpdate != null) {
      System.setProperty(DirectoryAssert.UPDATE_PROPERTY, savedUpdate);
    } else {
      System.clearProperty(DirectoryAssert.UPDATE_PROPERTY);
    }
  }

  private static void write(Path root, String name, String content) throws IOException {
    Path file = root.resolve(name);
    Files.createDirectories(file.getParent());
    Files.writeString(file, content, StandardCharsets.UTF_8);
  }

  private static void both(Path a, Path b, String name, String content) throws IOException {
    write(a, name, content);
    write(b, name, content);
  }

  private String failure() {
    Throwable thrown = org.assertj.core.api.Assertions.catchThrowable(
        () -> assertThatDirectory(actual).matchesGolden(golden));
    assertThat(thrown).isInstanceOf(AssertionError.class);
    return thrown.getMessage();
  }

  @Test
  void equalTreesMatchAndEmptyDirectoriesAreIgnored() throws IOException {
    both(golden, actual, "a/b.txt", "same\n");
    write(golden, ".lock", "");
    write(actual, ".lock", "");
    Files.createDirectories(actual.resolve("artifacts/tmp"));
    Files.createDirectories(golden.resolve("only/in/golden"));
    assertThatDirectory(actual).matchesGolden(golden);
  }

  @Test
  void missingAndExtraFilesAreListedByPath() throws IOException {
    both(golden, actual, "kept.txt", "x");
    write(golden, "ledgers/gone/state.json", "{}");
    write(actual, "ledgers/new/state.json", "{}");
    assertThat(failure())
        .contains("does not match golden " + golden)
        .contains("(1 missing, 1 extra, 0 different)")
        .contains("missing (in golden, not in actual): ledgers/gone/state.json")
        .contains("extra (in actual, not in golden):   ledgers/new/state.json")
        .contains("-Dledger.golden.update=true")
        .doesNotContain("kept.txt");
  }

  @Test
  void aDifferentTextFileShowsItsFirstDifferingLine() throws IOException {
    write(golden, "notes.txt", "one\ntwo\nthree\n");
    write(actual, "notes.txt", "one\ntwo\n3\n");
    assertThat(failure())
        .contains("(0 missing, 0 extra, 1 different)")
        .contains("different: notes.txt")
        .contains("line 3:")
        .contains("expected: \"three\"")
        .contains("actual:   \"3\"");
  }

  @Test
  void aShorterFileShowsTheEndOfFile() throws IOException {
    write(golden, "notes.txt", "one\ntwo\n");
    write(actual, "notes.txt", "one\n");
    assertThat(failure()).contains("line 2:")
        .contains("expected: \"two\"")
        .contains("actual:   \"\"");
    write(actual, "notes.txt", "one\ntwo");
    assertThat(failure()).contains("line 3:")
        .contains("expected: \"\"")
        .contains("actual:   <end of file>");
  }

  @Test
  void lineEndingsAreShown() throws IOException {
    write(golden, "notes.txt", "one\n");
    write(actual, "notes.txt", "one\r\n");
    assertThat(failure()).contains("line 1:").contains("actual:   \"one\\r\"");
  }

  @Test
  void aDifferentJsonFileShowsTheJsonPointerOfTheFirstDifference() throws IOException {
    write(golden, "state.json", "{\n  \"revision\" : 4,\n  \"state\" : {\"tasks\" : "
        + "[{\"id\" : \"a\", \"done\" : true}, {\"id\" : \"b/c\", \"done\" : false}]}\n}\n");
    write(actual, "state.json", "{\n  \"revision\" : 4,\n  \"state\" : {\"tasks\" : "
        + "[{\"id\" : \"a\", \"done\" : true}, {\"id\" : \"b/c\", \"done\" : true}]}\n}\n");
    assertThat(failure())
        .contains("different: state.json")
        .contains("line 3:")
        .contains("JSON pointer /state/tasks/1/done: expected false, actual true");
  }

  @Test
  void jsonMembersMissingOrExtraAreNamed() throws IOException {
    write(golden, "a.json", "{\"x\":1,\"y~z\":2}");
    write(actual, "a.json", "{\"x\":1}");
    assertThat(failure()).contains("JSON pointer /y~0z: expected 2, actual has no such member");
    write(actual, "a.json", "{\"x\":1,\"y~z\":2,\"extra\":[1]}");
    assertThat(failure()).contains("JSON pointer /extra: expected no such member, actual [1]");
    write(actual, "a.json", "{\"y~z\":2,\"x\":1}");
    assertThat(failure()).contains("same JSON values: key order, number format or white space");
  }

  @Test
  void aDifferentJsonLinesFileShowsTheLineAndThePointerWithinIt() throws IOException {
    write(golden, "journal/1.jsonl", "{\"seq\":1,\"events\":[{\"type\":\"a\"}]}\n"
        + "{\"seq\":2,\"events\":[{\"type\":\"b\"}]}\n");
    write(actual, "journal/1.jsonl", "{\"seq\":1,\"events\":[{\"type\":\"a\"}]}\n"
        + "{\"seq\":2,\"events\":[{\"type\":\"b\"},{\"type\":\"c\"}]}\n");
    assertThat(failure())
        .contains("different: journal/1.jsonl")
        .contains("line 2:")
        .contains("JSON pointer /events/1: expected the end of the array (size 1), actual "
            + "{\"type\":\"c\"} (in line 2)");
  }

  @Test
  void aLongLineIsCutToAWindowAroundItsDifference() throws IOException {
    String prefix = "x".repeat(500);
    write(golden, "long.txt", prefix + "EXPECTED" + "y".repeat(500));
    write(actual, "long.txt", prefix + "ACTUAL" + "y".repeat(500));
    String message = failure();
    assertThat(message).contains("(column 501)").contains("EXPECTED").contains("ACTUAL");
    assertThat(message.length()).isLessThan(1000);
  }

  @Test
  void aBinaryFileShowsTheFirstDifferingByte() throws IOException {
    Files.write(golden.resolve("blob"), new byte[] {1, 2, (byte) 0xff, 4});
    Files.write(actual.resolve("blob"), new byte[] {1, 2, (byte) 0xfe});
    assertThat(failure()).contains("binary content differs at byte 2 (expected 4 bytes, "
        + "actual 3)");
  }

  @Test
  void theUpdateSwitchRewritesTheGoldenTree() throws IOException {
    write(golden, "stale.txt", "old");
    write(golden, "same/name.json", "{\"v\":1}");
    write(actual, "same/name.json", "{\"v\":2}");
    write(actual, "new/file.txt", "new");
    System.setProperty(DirectoryAssert.UPDATE_PROPERTY, "true");
    assertThatDirectory(actual).matchesGolden(golden);
    System.clearProperty(DirectoryAssert.UPDATE_PROPERTY);
    assertThat(golden.resolve("stale.txt")).doesNotExist();
    assertThat(golden.resolve("same/name.json")).hasContent("{\"v\":2}");
    assertThat(golden.resolve("new/file.txt")).hasContent("new");
    assertThatDirectory(actual).matchesGolden(golden);
  }

  @Test
  void aMissingGoldenTreeSaysHowToCreateIt() {
    assertThatThrownBy(() -> assertThatDirectory(actual).matchesGolden(tmp.resolve("none")))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("does not exist; create it with -Dledger.golden.update=true");
    assertThatThrownBy(() -> assertThatDirectory(actual).matchesGolden("no/such/golden"))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("no golden directory");
  }

  @Test
  void aGoldenTreeUnderTestResourcesIsFoundByName() throws IOException {
    // src/test/resources/golden/sample of this module holds one file.
    write(actual, "hello.json", "{\"greeting\":\"hello\"}\n");
    assertThatDirectory(actual).matchesGolden("golden/sample");
  }
}
