package dev.ledger.examples.rollouts;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ledger.examples.rollouts.RolloutDocuments.RolloutStatus;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The proving example of ledger-collections: the rollout store's lifecycle run by two worker
 * threads and worker processes on one partition, to its end, one worker process killed
 * mid-attempt and found by the watchdog. Every invariant of
 * {@link RolloutInvariants} holds (each rollout ended exactly once, attempts and span sequence
 * ids gapless, the queue empty), both kinds of worker took part, and some rollouts were
 * retried and some failed for good, as the seeded outcomes dictate.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class RolloutLifecycleTest {
  @TempDir Path dir;

  @Test
  void threadsAndAProcessRunEveryRolloutToExactlyOneEnd() throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    RolloutLifecycle.Result result;
    try (PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8)) {
      result = new RolloutLifecycle(new RolloutLifecycle.Config(dir.resolve("store"),
          "rollouts", 24, 2, 11), out).run();
    }
    var findings = result.findings();
    assertThat(findings.violations()).as("output:%n%s", bytes.toString(StandardCharsets.UTF_8))
        .isEmpty();
    assertThat(findings.outcomes()).hasSize(24);
    assertThat(findings.attemptsByWorker().keySet()).contains("process-1", "process-2")
        .containsAnyOf("thread-1", "thread-2");
    // The killed worker's rollout: its first attempt went unresponsive and it was retried.
    String killedRollout = result.killed().split(" of ")[1];
    assertThat(findings.outcomes().get(killedRollout).attempts()).isGreaterThan(1);
    assertThat(findings.outcomes().values()).anySatisfy(o -> assertThat(o.attempts())
        .isGreaterThan(1));
    assertThat(findings.outcomes().values()).anySatisfy(o -> assertThat(o.status())
        .isEqualTo(RolloutStatus.FAILED));
    assertThat(findings.outcomes().values()).anySatisfy(o -> assertThat(o.status())
        .isEqualTo(RolloutStatus.SUCCEEDED));
    assertThat(result.lines()).anyMatch(l -> l.contains("checked"));
  }
}
