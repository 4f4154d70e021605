package dev.ledger.testing.metrics;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.ledger.core.Ledger;
import dev.ledger.core.LedgerOptions;
import dev.ledger.core.StateType;
import dev.ledger.core.fs.FileLedgerStore;
import io.micrometer.core.instrument.Metrics;
import java.nio.file.Path;
import java.time.Duration;

/**
 * The regression {@link NoMicrometerTest} exists to catch, written on purpose: a store with
 * no registry whose commit path still names a Micrometer type (here it falls back to
 * Micrometer's global registry, a common mistake). On a class path with Micrometer it runs
 * and records nothing anyone sees; without Micrometer it must fail with
 * {@link NoClassDefFoundError}, and the test's harness must report that.
 */
public final class MicrometerLeakWorkload {
  private MicrometerLeakWorkload() {}

  /**
   * Commits once to a file store with no registry, then "records" the commit.
   *
   * @param dir an empty directory for the store
   * @return a summary of what was done
   */
  public static String run(Path dir) {
    try (FileLedgerStore files = FileLedgerStore.open(dir.resolve("ledgers"),
        LedgerOptions.defaults())) {
      Ledger<JsonNode> a = files.ledger("a", StateType.of(JsonNode.class));
      long start = System.nanoTime();
      a.commit(Ledger.NO_REVISION, JsonNodeFactory.instance.numberNode(1));
      FallbackRecorder.commitTook(Duration.ofNanos(System.nanoTime() - start));
      return "revision=" + a.load().revision();
    }
  }

  /** The leak: a recorder for "no registry" that is still Micrometer underneath. */
  private static final class FallbackRecorder {
    static void commitTook(Duration time) {
      Metrics.timer("ledger.commit").record(time);
    }
  }
}
