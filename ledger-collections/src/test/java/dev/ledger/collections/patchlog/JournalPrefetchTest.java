package dev.ledger.collections.patchlog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ledger.core.spi.LoggedCommit;
import dev.ledger.core.spi.PatchLog;
import java.lang.reflect.Proxy;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Spliterators;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.Test;

/**
 * The journal read ahead on a second thread for a cold open: every commit reaches the fold in
 * order, the reader runs ahead of the fold by no more than its heap budget allows (a batch
 * larger than the budget alone still passes), and a failure of the reader reaches the caller
 * after the commits before it.
 */
class JournalPrefetchTest {
  /** A patch of one text member of {@code chars} characters. */
  private static LoggedCommit commit(long revision, int chars) {
    ObjectNode patch = Json.NODES.objectNode();
    patch.put("x", "a".repeat(chars));
    return new LoggedCommit(revision, Instant.EPOCH, 0, null, patch, List.of(), null);
  }

  /** A log whose patchesAfter yields {@code commits}, counting those taken in {@code read}. */
  private static PatchLog log(List<LoggedCommit> commits, AtomicInteger read,
      RuntimeException failAtEnd) {
    return (PatchLog) Proxy.newProxyInstance(PatchLog.class.getClassLoader(),
        new Class<?>[] {PatchLog.class}, (proxy, method, args) -> {
          if (!method.getName().equals("patchesAfter")) {
            throw new UnsupportedOperationException(method.getName());
          }
          Iterator<LoggedCommit> it = commits.iterator();
          Iterator<LoggedCommit> counted = new Iterator<>() {
            @Override
            public boolean hasNext() {
              if (!it.hasNext() && failAtEnd != null) {
                throw failAtEnd;
              }
              return it.hasNext();
            }

            @Override
            public LoggedCommit next() {
              read.incrementAndGet();
              return it.next();
            }
          };
          return StreamSupport.stream(Spliterators.spliteratorUnknownSize(counted, 0), false);
        });
  }

  @Test
  void theReaderRunsAheadNoFurtherThanItsBudgetAndEveryCommitArrivesInOrder() {
    // Each commit about 8 KiB by the estimate; a budget of 256 KiB holds about 32 of them
    // queued, besides the batch of 64 the reader fills.
    List<LoggedCommit> commits = new ArrayList<>();
    for (int i = 1; i <= 2_000; i++) {
      commits.add(commit(i, 8 * 1024));
    }
    long each = JournalPrefetch.estimate(commits.get(0));
    assertThat(each).isBetween(8L * 1024, 9L * 1024);
    AtomicInteger read = new AtomicInteger();
    List<Long> folded = new ArrayList<>();
    int[] mostAhead = {0};
    try (JournalPrefetch prefetch = new JournalPrefetch(log(commits, read, null), 0, "p",
        256)) {
      prefetch.forEach(c -> {
        folded.add(c.revision());
        mostAhead[0] = Math.max(mostAhead[0], read.get() - folded.size());
        if (folded.size() % 100 == 0) {
          // A slow fold: the reader fills its budget meanwhile.
          sleep();
        }
      });
    }
    assertThat(folded).hasSize(2_000);
    for (int i = 0; i < folded.size(); i++) {
      assertThat(folded.get(i)).isEqualTo(i + 1L);
    }
    // Two batches in the budget at most (64 commits of 8 KiB are 512 KiB or more: each batch
    // alone is over it), one being folded, one being filled.
    assertThat(mostAhead[0]).isLessThanOrEqualTo(3 * 64).isGreaterThan(64);
  }

  @Test
  void aBatchLargerThanTheBudgetPassesAlone() {
    List<LoggedCommit> commits = List.of(commit(1, 1 << 20), commit(2, 1 << 20));
    List<Long> folded = new ArrayList<>();
    try (JournalPrefetch prefetch = new JournalPrefetch(log(commits, new AtomicInteger(),
        null), 0, "p", 16)) {
      prefetch.forEach(c -> folded.add(c.revision()));
    }
    assertThat(folded).containsExactly(1L, 2L);
  }

  @Test
  void aFailureOfTheReaderReachesTheCallerAfterTheCommitsBeforeIt() {
    List<LoggedCommit> commits = new ArrayList<>();
    for (int i = 1; i <= 100; i++) {
      commits.add(commit(i, 10));
    }
    IllegalStateException failure = new IllegalStateException("damaged journal of p");
    List<Long> folded = new ArrayList<>();
    try (JournalPrefetch prefetch = new JournalPrefetch(log(commits, new AtomicInteger(),
        failure), 0, "p")) {
      assertThatThrownBy(() -> prefetch.forEach(c -> folded.add(c.revision())))
          .isSameAs(failure);
    }
    assertThat(folded).hasSize(100);
  }

  private static void sleep() {
    try {
      Thread.sleep(20);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
