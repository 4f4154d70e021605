package dev.ledger.artifacts.fs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ledger.artifacts.ArtifactRef;
import dev.ledger.artifacts.ArtifactSnapshot;
import dev.ledger.artifacts.ContentId;
import dev.ledger.artifacts.EvidenceRef;
import dev.ledger.artifacts.SnapshotContent;
import dev.ledger.core.internal.json.LedgerJson;
import dev.ledger.testing.base.SeedExtension;
import dev.ledger.testing.base.TestSeed;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Seeded random snapshots survive encoding and decoding unchanged, byte-stable. */
@ExtendWith(SeedExtension.class)
class SnapshotFileTest {
  private static final String ALPHABET = "aZ09 ._-\t\n\"\\/éß漢字😀\u0000\u001f\u2028";

  private static String text(Random random, int max) {
    StringBuilder out = new StringBuilder();
    int n = random.nextInt(max + 1);
    while (out.length() < n) {
      out.appendCodePoint(ALPHABET.codePointAt(
          ALPHABET.offsetByCodePoints(0, random.nextInt(ALPHABET.codePointCount(0,
              ALPHABET.length())))));
    }
    return out.toString();
  }

  private static String nonBlank(Random random) {
    return "n" + text(random, 12);
  }

  private static ContentId blob(Random random) {
    return new ContentId(LedgerJson.sha256Hex(Long.toString(random.nextLong())));
  }

  private static SnapshotContent content(Random random) {
    List<ArtifactRef> artifacts = new ArrayList<>();
    for (int i = random.nextInt(4); i > 0; i--) {
      int mode = random.nextInt(3); // 0: blob, 1: uri, 2: both
      artifacts.add(new ArtifactRef(nonBlank(random),
          random.nextBoolean() ? null : text(random, 10),
          mode != 1 ? blob(random) : null,
          mode != 0 ? text(random, 20) : null));
    }
    List<EvidenceRef> evidence = new ArrayList<>();
    for (int i = random.nextInt(3); i > 0; i--) {
      evidence.add(random.nextBoolean()
          ? EvidenceRef.ofBlob(nonBlank(random), text(random, 10), blob(random))
          : EvidenceRef.ofUri(nonBlank(random), null, text(random, 15)));
    }
    return new SnapshotContent(text(random, 40), artifacts, evidence);
  }

  @Test
  void randomSnapshotsRoundTripByteForByte(TestSeed seed) {
    Random random = seed.random();
    Path file = Path.of("attempts", "root-1", "x.json");
    for (int i = 0; i < 300; i++) {
      SnapshotContent content = content(random);
      String attempt = "a-" + random.nextInt(1_000_000);
      ArtifactSnapshot snapshot = ArtifactSnapshot.of("root-1", attempt, content,
          Instant.ofEpochSecond(random.nextInt(2_000_000_000), random.nextInt(1_000_000_000)));
      byte[] encoded = SnapshotFile.encode(snapshot);
      ArtifactSnapshot decoded = SnapshotFile.decode(file, encoded, "root-1",
          snapshot.snapshotId());
      assertThat(decoded).as("%s, case %d", seed, i).isEqualTo(snapshot);
      assertThat(SnapshotFile.encode(decoded)).as("%s, case %d", seed, i)
          .isEqualTo(encoded);
      assertThat(SnapshotContent.fromJson(content.toJson())).as("%s", seed)
          .isEqualTo(content);
    }
  }

  @Test
  void summaryWhitespaceDoesNotChangeTheDigest() {
    SnapshotContent a = new SnapshotContent("done", List.of(), List.of());
    SnapshotContent b = new SnapshotContent(" \t done \n", List.of(), List.of());
    assertThat(b).isEqualTo(a);
    assertThat(b.sha256()).isEqualTo(a.sha256());
    assertThat(new String(a.canonicalJson(), java.nio.charset.StandardCharsets.UTF_8))
        .isEqualTo("{\"artifactRefs\":[],\"evidenceRefs\":[],\"summary\":\"done\"}");
  }
}
