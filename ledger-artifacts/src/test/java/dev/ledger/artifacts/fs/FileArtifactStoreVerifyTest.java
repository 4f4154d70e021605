package dev.ledger.artifacts.fs;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ledger.artifacts.ArtifactRef;
import dev.ledger.artifacts.ArtifactSnapshot;
import dev.ledger.artifacts.ArtifactVerification;
import dev.ledger.artifacts.AttemptSubmission;
import dev.ledger.artifacts.ContentId;
import dev.ledger.artifacts.SnapshotDamage;
import dev.ledger.core.internal.json.LedgerJson;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link FileArtifactStore#verify()} checks snapshots as well as blobs, and writes nothing. */
class FileArtifactStoreVerifyTest {
  @TempDir
  Path base;

  private ArtifactSnapshot freeze(FileArtifactStore store, String attempt, String text) {
    ContentId blob = store.blobs().put(text.getBytes(StandardCharsets.UTF_8));
    return store.freeze("root-1", attempt, AttemptSubmission.of("summary of " + attempt,
        List.of(ArtifactRef.ofBlob("out.txt", "text/plain", blob)), List.of()));
  }

  private static void overwrite(Path file, byte[] bytes) throws IOException {
    file.toFile().setWritable(true, true);
    Files.write(file, bytes);
  }

  private static Map<String, String> tree(Path dir) throws IOException {
    Map<String, String> out = new TreeMap<>();
    try (Stream<Path> paths = Files.walk(dir)) {
      for (Path p : (Iterable<Path>) paths::iterator) {
        BasicFileAttributes a = Files.readAttributes(p, BasicFileAttributes.class,
            LinkOption.NOFOLLOW_LINKS);
        out.put(dir.relativize(p).toString(), a.size() + " " + a.lastModifiedTime()
            + (a.isRegularFile() ? " " + LedgerJson.sha256Hex(Files.readAllBytes(p)) : ""));
      }
    }
    return out;
  }

  @Test
  void aSoundStoreIsSound() {
    try (FileArtifactStore store = FileArtifactStore.open(base)) {
      freeze(store, "a-1", "one");
      freeze(store, "a-2", "two");
      ArtifactVerification result = store.verify();
      assertThat(result.sound()).isTrue();
      assertThat(result.snapshots()).isEqualTo(2);
      assertThat(result.blobs().checked()).isEqualTo(2);
    }
  }

  @Test
  void damagedSnapshotsAreEachNamedAndNothingChanges() throws IOException {
    Path tampered;
    Path renamed;
    Path missingBlobSnapshot;
    Path garbage;
    ContentId deleted;
    try (FileArtifactStore store = FileArtifactStore.open(base)) {
      ArtifactSnapshot a1 = freeze(store, "a-1", "one");
      ArtifactSnapshot a2 = freeze(store, "a-2", "two");
      ArtifactSnapshot a3 = freeze(store, "a-3", "three");
      ArtifactSnapshot a4 = freeze(store, "a-4", "four");
      // content edited: the digest no longer matches
      tampered = store.snapshotPath("root-1", a1.snapshotId());
      ObjectNode node = (ObjectNode) LedgerJson.parse(Files.readAllBytes(tampered));
      ((ObjectNode) node.get("content")).put("summary", "rewritten");
      overwrite(tampered, LedgerJson.pretty(node));
      // a snapshot under another attempt's name
      renamed = store.snapshotPath("root-1", ArtifactSnapshot.idFor("a-9"));
      Files.move(store.snapshotPath("root-1", a2.snapshotId()), renamed);
      // a referenced blob gone
      missingBlobSnapshot = store.snapshotPath("root-1", a3.snapshotId());
      deleted = a3.content().blobs().iterator().next();
      Files.delete(base.resolve("artifacts/blobs/sha256").resolve(deleted.hex().substring(0, 2))
          .resolve(deleted.hex().substring(2)));
      // not JSON
      garbage = store.snapshotPath("root-1", a4.snapshotId());
      overwrite(garbage, "{\"attemptId\":".getBytes(StandardCharsets.UTF_8));
    }
    Map<String, String> before = tree(base);
    ArtifactVerification result;
    try (FileArtifactStore store = FileArtifactStore.openReadOnly(base)) {
      result = store.verify();
    }
    try (FileArtifactStore store = FileArtifactStore.open(base)) {
      assertThat(store.verify()).isEqualTo(result);
    }
    assertThat(tree(base)).isEqualTo(before);
    assertThat(result.sound()).isFalse();
    assertThat(result.blobs().sound()).isTrue();
    assertThat(result.snapshots()).isEqualTo(4);
    assertThat(result.damagedSnapshots()).extracting(SnapshotDamage::path)
        .containsExactlyInAnyOrder(tampered, renamed, missingBlobSnapshot, garbage);
    SnapshotDamage missing = result.damagedSnapshots().stream()
        .filter(d -> d.path().equals(missingBlobSnapshot)).findFirst().orElseThrow();
    assertThat(missing.missingBlob()).isEqualTo(deleted);
    assertThat(missing.rootId()).isEqualTo("root-1");
    SnapshotDamage digest = result.damagedSnapshots().stream()
        .filter(d -> d.path().equals(tampered)).findFirst().orElseThrow();
    assertThat(digest.detail()).contains("sha256");
    SnapshotDamage name = result.damagedSnapshots().stream()
        .filter(d -> d.path().equals(renamed)).findFirst().orElseThrow();
    assertThat(name.detail()).contains("under the name of");
  }
}
