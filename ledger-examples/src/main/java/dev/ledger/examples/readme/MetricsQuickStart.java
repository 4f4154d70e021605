package dev.ledger.examples.readme;

// README:begin metrics
import dev.ledger.core.EventDraft;
import dev.ledger.core.Ledger;
import dev.ledger.core.LedgerOptions;
import dev.ledger.core.RevisionConflictException;
import dev.ledger.core.fs.FileLedgerStore;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Map;

/** Metrics: a store given a registry records its commits, by outcome. */
public class MetricsQuickStart {
  /** The state: a count. */
  public record Count(int value) {}

  /** Takes a store directory, or makes a new temporary one. */
  public static void main(String[] args) throws Exception {
    Path dir = args.length > 0 ? Path.of(args[0]) : Files.createTempDirectory("metrics");
    MeterRegistry registry = new SimpleMeterRegistry(); // or your Prometheus, OTLP... registry
    LedgerOptions options = LedgerOptions.defaults().withMeterRegistry(registry);
    try (FileLedgerStore store = FileLedgerStore.open(dir, options)) {
      Ledger<Count> ledger = store.ledger("counter", Count.class);
      ledger.commit(Ledger.NO_REVISION, new Count(1), EventDraft.of("counted", Map.of("to", 1)));
      try {
        ledger.commit(Ledger.NO_REVISION, new Count(1)); // stale: revision 1 exists
      } catch (RevisionConflictException expected) {
        // counted under outcome=conflict
      }
    }
    registry.find("ledger.commit").timers().stream()
        .sorted(Comparator.comparing((Timer t) -> t.getId().getTag("outcome")))
        .forEach(t -> System.out.println("ledger.commit outcome=" + t.getId().getTag("outcome")
            + " exception=" + t.getId().getTag("exception") + " count=" + t.count()));
    // The close wrote a final checkpoint.
    System.out.println("ledger.checkpoints " + registry.get("ledger.checkpoints").counter()
        .count());
  }
}
// README:end
