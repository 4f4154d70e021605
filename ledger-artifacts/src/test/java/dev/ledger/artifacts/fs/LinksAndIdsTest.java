package dev.ledger.artifacts.fs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.ledger.artifacts.ArtifactRef;
import dev.ledger.artifacts.ArtifactSnapshot;
import dev.ledger.artifacts.AttemptSubmission;
import dev.ledger.artifacts.ContentId;
import dev.ledger.core.InvalidIdentifierException;
import dev.ledger.core.SymbolicLinkException;
import dev.ledger.testing.base.DirectorySnapshot;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Ids become paths only when they are portable, and no path of the store is reached through a
 * symbolic link: a link planted in each place is refused with {@link SymbolicLinkException}
 * naming it, and neither the store nor what the link points to changes.
 */
class LinksAndIdsTest {
  private static final byte[] BYTES = "report".getBytes(StandardCharsets.UTF_8);

  @TempDir
  Path tmp;

  Path base;
  Path artifacts;
  Path elsewhere;
  ContentId blob;

  @BeforeEach
  void writeStoreAndACopyElsewhere() throws IOException {
    base = tmp.resolve("store");
    try (FileArtifactStore store = FileArtifactStore.open(base)) {
      blob = store.blobs().put(BYTES);
      store.freeze("run-1", "attempt-1", submission());
    }
    artifacts = base.resolve("artifacts");
    elsewhere = tmp.resolve("elsewhere");
    copy(artifacts, elsewhere);
  }

  private AttemptSubmission submission() {
    return AttemptSubmission.of("done", List.of(ArtifactRef.ofBlob("r", "text/plain", blob)),
        List.of());
  }

  private Path blobFile() {
    return artifacts.resolve("blobs/sha256").resolve(blob.hex().substring(0, 2))
        .resolve(blob.hex().substring(2));
  }

  private Path snapshotFile() {
    return artifacts.resolve("attempts/run-1").resolve(ArtifactSnapshot.idFor("attempt-1")
        + ".json");
  }

  private Path plant(Path path) throws IOException {
    assumeTrue(canLink(), "this file system has no symbolic links");
    Path twin = elsewhere.resolve(artifacts.relativize(path).toString());
    deleteRecursively(path);
    return Files.createSymbolicLink(path, twin);
  }

  private boolean canLink() {
    try {
      Path probe = Files.createSymbolicLink(tmp.resolve("probe"), tmp);
      Files.delete(probe);
      return true;
    } catch (UnsupportedOperationException | IOException e) {
      return false;
    }
  }

  private void assertRefused(Path link, String what, Consumer<FileArtifactStore> operation)
      throws IOException {
    DirectorySnapshot store = snapshot(base);
    DirectorySnapshot target = snapshot(elsewhere);
    Throwable thrown = catchThrowable(() -> {
      try (FileArtifactStore opened = FileArtifactStore.open(base)) {
        operation.accept(opened);
      }
    });
    assertThat(thrown).as(what).isInstanceOf(SymbolicLinkException.class)
        .hasMessageContaining(link.toString());
    assertThat(((SymbolicLinkException) thrown).path()).as(what).isEqualTo(link);
    assertThat(store.diff(snapshot(base))).as("%s: the store is unchanged", what).isEmpty();
    assertThat(target.diff(snapshot(elsewhere))).as("%s: the link's target is unchanged", what)
        .isEmpty();
  }

  private static byte[] read(InputStream in) {
    try (in) {
      return in.readAllBytes();
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  @Test
  void aLinkedBlobIsRefusedByEveryBlobOperation() throws IOException {
    Path link = plant(blobFile());
    assertRefused(link, "open", s -> read(s.blobs().open(blob)));
    assertRefused(link, "exists", s -> s.blobs().exists(blob));
    assertRefused(link, "size", s -> s.blobs().size(blob));
    assertRefused(link, "put of the same bytes", s -> s.blobs().put(BYTES));
    assertRefused(link, "freeze referencing it", s -> s.freeze("run-1", "attempt-2",
        submission()));
  }

  @Test
  void aLinkedBlobDirectoryIsRefused() throws IOException {
    Path link = plant(blobFile().getParent());
    assertRefused(link, "open", s -> read(s.blobs().open(blob)));
    assertRefused(link, "put", s -> s.blobs().put(BYTES));
  }

  @Test
  void aLinkedSnapshotOrRootDirectoryIsRefused() throws IOException {
    Path link = plant(snapshotFile());
    assertRefused(link, "getForAttempt", s -> s.getForAttempt("run-1", "attempt-1"));
    assertRefused(link, "freeze", s -> s.freeze("run-1", "attempt-1", submission()));
    Files.delete(link);
    copy(elsewhere.resolve(artifacts.relativize(link).toString()), link);

    Path dir = plant(snapshotFile().getParent());
    assertRefused(dir, "getForAttempt", s -> s.getForAttempt("run-1", "attempt-1"));
    assertRefused(dir, "freeze of another attempt", s -> s.freeze("run-1", "attempt-9",
        submission()));
  }

  @Test
  void linkedStoreDirectoriesAndMarkerAreRefusedWhenTheStoreOpens() throws IOException {
    for (String name : List.of("format.json", "blobs", "attempts", "tmp")) {
      Path link = plant(artifacts.resolve(name));
      assertRefused(link, "open with a linked " + name, s -> { });
      Files.delete(link);
      copy(elsewhere.resolve(name), artifacts.resolve(name));
    }
  }

  @Test
  void hostileIdsAreRefusedBeforeAnythingIsWritten() throws IOException {
    DirectorySnapshot before = snapshot(base);
    try (FileArtifactStore store = FileArtifactStore.open(base)) {
      for (String id : List.of("CON", "nul.txt", "Com1.tar.gz", "lpt9", "run.", "a..b", "..",
          "a/b", "-x", ".hidden")) {
        Throwable asRoot = catchThrowable(() -> store.freeze(id, "attempt-1", submission()));
        assertThat(asRoot).as("root id %s", id).isInstanceOf(InvalidIdentifierException.class)
            .hasMessageContaining("root id");
        assertThat(((InvalidIdentifierException) asRoot).value()).isEqualTo(id);
        Throwable asAttempt = catchThrowable(() -> store.freeze("run-1", id, submission()));
        assertThat(asAttempt).as("attempt id %s", id)
            .isInstanceOf(InvalidIdentifierException.class).hasMessageContaining("attempt id");
        assertThat(catchThrowable(() -> store.getForAttempt(id, "attempt-1"))).as(id)
            .isInstanceOf(InvalidIdentifierException.class);
      }
    }
    assertThat(before.diff(snapshot(base))).isEmpty();
  }

  // ---------------------------------------------------------------- helpers

  /**
   * The tree under {@code root}, links described and not followed; a lock file's time is left
   * out (a writer may lock before it meets the link), its content is not.
   */
  private static DirectorySnapshot snapshot(Path root) throws IOException {
    return DirectorySnapshot.of(root, DirectorySnapshot.Options.defaults()
        .ignoringTimesOf(".lock"));
  }

  private static void copy(Path from, Path to) throws IOException {
    try (Stream<Path> all = Files.walk(from)) {
      for (Path p : all.toList()) {
        Path target = to.resolve(from.relativize(p).toString());
        if (Files.isDirectory(p)) {
          Files.createDirectories(target);
        } else {
          Files.createDirectories(target.getParent());
          Files.copy(p, target, StandardCopyOption.COPY_ATTRIBUTES);
        }
      }
    }
  }

  private static void deleteRecursively(Path path) throws IOException {
    if (Files.isDirectory(path, LinkOption.NOFOLLOW_LINKS)) {
      try (Stream<Path> children = Files.list(path)) {
        for (Path child : children.toList()) {
          deleteRecursively(child);
        }
      }
    }
    Files.deleteIfExists(path);
  }
}
