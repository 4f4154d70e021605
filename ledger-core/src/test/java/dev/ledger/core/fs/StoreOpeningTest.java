package dev.ledger.core.fs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.ledger.core.LedgerIOException;
import dev.ledger.core.ReadOnlyStoreException;
import dev.ledger.core.StoreClosedException;
import dev.ledger.core.StoreNotFoundException;
import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What opening a store says when the path is wrong: plainly, with the path. */
class StoreOpeningTest {
  @TempDir
  Path dir;

  @Test
  void openingOnARegularFileSaysNotADirectoryAndLeavesTheFileAlone() throws IOException {
    Path file = Files.writeString(dir.resolve("notes.txt"), "keep me");
    assertThatThrownBy(() -> FileLedgerStore.open(file))
        .isInstanceOf(LedgerIOException.class)
        .hasMessage("Cannot open a store at " + file + ": not a directory");
    Path below = file.resolve("store");
    Throwable thrown = catchThrowable(() -> FileLedgerStore.open(below));
    assertThat(thrown).isInstanceOf(LedgerIOException.class)
        .hasMessage("Cannot open a store at " + below + ": " + file + " is not a directory");
    assertThat(((LedgerIOException) thrown).path()).isEqualTo(below);
    assertThat(Files.readString(file)).isEqualTo("keep me");
    try (var entries = Files.list(dir)) {
      assertThat(entries.toList()).containsExactly(file);
    }
  }

  @Test
  void openingReadOnlyWhereNoStoreIsSaysNoStoreAtTheDirectory() throws IOException {
    Path missing = dir.resolve("missing");
    assertThatThrownBy(() -> FileLedgerStore.openReadOnly(missing))
        .isInstanceOf(StoreNotFoundException.class)
        .hasMessage("No store at " + missing + ": the directory does not exist");
    assertThat(missing).doesNotExist();

    Path empty = Files.createDirectory(dir.resolve("empty"));
    assertThatThrownBy(() -> FileLedgerStore.openReadOnly(empty))
        .isInstanceOf(StoreNotFoundException.class)
        .hasMessageStartingWith("No store at " + empty + ": it holds no store.json");
    try (var entries = Files.list(empty)) {
      assertThat(entries.toList()).as("nothing created").isEmpty();
    }

    Path file = Files.writeString(dir.resolve("file"), "x");
    Throwable thrown = catchThrowable(() -> FileLedgerStore.openReadOnly(file));
    assertThat(thrown).isInstanceOf(StoreNotFoundException.class)
        .hasMessage("No store at " + file + ": not a directory");
    assertThat(((StoreNotFoundException) thrown).path()).isEqualTo(file);
  }

  @Test
  void aCommitThroughAReadOnlyStoreSaysReadOnlyOnce() {
    Path base = dir.resolve("store");
    try (FileLedgerStore store = FileLedgerStore.open(base)) {
      store.ledger("run-1", JsonNode.class).commit(0, JsonNodeFactory.instance.objectNode());
    }
    try (FileLedgerStore store = FileLedgerStore.openReadOnly(base)) {
      Throwable thrown = catchThrowable(() -> store.ledger("run-1", JsonNode.class)
          .commit(1, JsonNodeFactory.instance.objectNode()));
      assertThat(thrown).isInstanceOf(ReadOnlyStoreException.class).hasMessage(
          "Refused a commit to ledger 'run-1': the file store at " + base
              + " was opened read-only");
      assertThat(occurrences(thrown.getMessage(), "read-only")).isEqualTo(1);
    }
  }

  @Test
  void aClosedStoreSaysWhichStoreIsClosed() {
    Path base = dir.resolve("store");
    FileLedgerStore store = FileLedgerStore.open(base);
    store.close();
    assertThatThrownBy(() -> store.ledger("run-1", JsonNode.class))
        .isInstanceOf(StoreClosedException.class)
        .hasMessage("File store at " + base + " is closed");
    FileLedgerStore readOnly = FileLedgerStore.openReadOnly(base);
    readOnly.close();
    assertThatThrownBy(readOnly::rootIds).isInstanceOf(StoreClosedException.class)
        .hasMessage("Read-only file store at " + base + " is closed");
  }

  @Test
  void ioErrorsNameTheOperationThePathAndAPlainReason() {
    Path path = dir.resolve("ledgers").resolve("run-1").resolve("state.json");
    assertThat(new LedgerIOException("reading checkpoint", path,
        new NoSuchFileException(path.toString())).getMessage())
        .isEqualTo("I/O error while reading checkpoint: " + path + ": no such file or directory");
    assertThat(new LedgerIOException("publishing blob x at", path,
        new AccessDeniedException(dir.toString())).getMessage())
        .isEqualTo("I/O error while publishing blob x: " + path + ": " + dir
            + ": permission denied");
    assertThat(new LedgerIOException("appending", path,
        new IOException("No space left on device")).getMessage())
        .isEqualTo("I/O error while appending: " + path + ": No space left on device");
  }

  private static int occurrences(String text, String word) {
    Matcher m = Pattern.compile(Pattern.quote(word)).matcher(text);
    int n = 0;
    while (m.find()) {
      n++;
    }
    return n;
  }
}
