package dev.ledger.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ledger.artifacts.ArtifactOptions;
import dev.ledger.artifacts.ArtifactRef;
import dev.ledger.artifacts.ArtifactSnapshot;
import dev.ledger.artifacts.BlobVerification;
import dev.ledger.artifacts.ContentId;
import dev.ledger.artifacts.SnapshotContent;
import dev.ledger.core.internal.json.LedgerJson;
import dev.ledger.testing.base.ChildJvm;
import java.io.InputStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two JVMs stand for two hosts: separate pools and stores, one database, one blob directory.
 * They freeze the same attempts, each with different content, at the same time. Each attempt
 * has exactly one winner; the winner was told its own snapshot and the loser the winner's
 * digest; the table holds the winner; the winner's blobs are in the shared directory, and
 * their bytes hash to their names.
 */
class PostgresArtifactRaceTest {
  private static final int ATTEMPTS = 40 * Integer.getInteger("ledger.torture.scale", 1);
  private static final List<String> HOSTS = List.of("host-a", "host-b");

  @TempDir Path dir;

  @Test
  void racingHostsGetOneWinnerPerAttemptAndAgreeOnIt() throws Exception {
    String schema = TestDatabase.freshSchema();
    Path shared = dir.resolve("shared");
    PostgresArtifactStore.open(TestDatabase.dataSource(), schema, shared,
        ArtifactOptions.defaults()).close();
    Map<String, ChildJvm> children = new HashMap<>();
    Map<String, List<String>> outputs = new HashMap<>();
    try {
      for (String host : HOSTS) {
        children.put(host, ChildJvm.start(RacingFreezer.class, TestDatabase.jdbcUrl(), schema,
            shared.toString(), host, String.valueOf(ATTEMPTS)));
      }
      for (ChildJvm child : children.values()) {
        child.awaitLine("READY", Duration.ofMinutes(1));
      }
      children.values().forEach(child -> child.send("GO"));
      for (String host : HOSTS) {
        children.get(host).awaitSuccess(Duration.ofMinutes(3));
        outputs.put(host, children.get(host).lines());
      }
    } finally {
      children.values().forEach(ChildJvm::close);
    }

    Map<Integer, String> winners = new HashMap<>();
    Map<Integer, String> winningDigests = new HashMap<>();
    List<String[]> losses = new ArrayList<>();
    for (String host : HOSTS) {
      for (String line : outputs.get(host)) {
        String[] f = line.split(" ");
        if (f[0].equals("WON")) {
          int k = Integer.parseInt(f[1]);
          assertThat(winners.put(k, host)).as("attempt %s won twice", k).isNull();
          assertThat(f[2]).as("what %s was told for attempt %s", host, k)
              .isEqualTo(expectedDigest(host, k));
          winningDigests.put(k, f[2]);
        } else if (f[0].equals("LOST")) {
          losses.add(new String[] {host, f[1], f[2]});
        }
      }
    }
    assertThat(winners).hasSize(ATTEMPTS);
    assertThat(losses).hasSize(ATTEMPTS);
    for (String[] loss : losses) {
      int k = Integer.parseInt(loss[1]);
      assertThat(winners.get(k)).as("winner of attempt %s", k).isNotEqualTo(loss[0]);
      assertThat(loss[2]).as("the winner %s was told of attempt %s", loss[0], k)
          .isEqualTo(winningDigests.get(k));
    }
    System.out.printf("attempts won: %s%n", HOSTS.stream().map(h -> h + "="
        + winners.values().stream().filter(h::equals).count()).toList());

    try (PostgresArtifactStore store = PostgresArtifactStore.openReadOnly(
        TestDatabase.dataSource(), schema, shared)) {
      for (int k = 0; k < ATTEMPTS; k++) {
        String winner = winners.get(k);
        ArtifactSnapshot stored = store.getForAttempt("race", "a-" + k).orElseThrow();
        assertThat(stored.sha256()).isEqualTo(winningDigests.get(k));
        assertThat(stored.summary()).isEqualTo("by " + winner);
        List<ArtifactRef> refs = stored.artifactRefs();
        assertThat(read(store, refs.get(0).blob())).isEqualTo(RacingFreezer.commonBytes(k));
        assertThat(read(store, refs.get(1).blob()))
            .isEqualTo(RacingFreezer.fileBytes(winner, k));
      }
      BlobVerification verification = store.blobs().verify();
      assertThat(verification.damaged()).isEmpty();
      // Per attempt: the common input (one blob, put by both) and each host's own file.
      assertThat(verification.checked()).isEqualTo(3L * ATTEMPTS);
      assertThat(store.rootIds()).containsExactly("race");
    }
  }

  /** Reads a blob through the store, which checks its bytes against its id as it reads. */
  private static byte[] read(PostgresArtifactStore store, ContentId id) throws Exception {
    try (InputStream in = store.blobs().open(id)) {
      return in.readAllBytes();
    }
  }

  private static String expectedDigest(String host, int k) {
    ContentId common = new ContentId(LedgerJson.sha256Hex(RacingFreezer.commonBytes(k)));
    ContentId file = new ContentId(LedgerJson.sha256Hex(RacingFreezer.fileBytes(host, k)));
    return new SnapshotContent("by " + host,
        List.of(ArtifactRef.ofBlob("input.txt", "text/plain", common),
            ArtifactRef.ofBlob("out.txt", "text/plain", file)), List.of()).sha256();
  }
}
