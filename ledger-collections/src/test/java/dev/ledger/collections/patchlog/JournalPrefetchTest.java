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
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.Test;

/**
 * The journal read ahead on a second thread for a cold open: every commit reaches the fold in
 * order, and a failure of the reader reaches the caller after every commit read before it
 * (a part of a batch included).
 */
class JournalPrefetchTest {
  private static LoggedCommit commit(long revision) {
    ObjectNode patch = Json.NODES.objectNode();
    patch.put("x", revision);
    return new LoggedCommit(revision, Instant.EPOCH, 0, null, patch, List.of(), null);
  }

  /** A log whose patchesAfter yields {@code count} commits, then fails if {@code failure}. */
  private static PatchLog log(int count, RuntimeException failure) {
    return (PatchLog) Proxy.newProxyInstance(PatchLog.class.getClassLoader(),
        new Class<?>[] {PatchLog.class}, (proxy, method, args) -> {
          if (!method.getName().equals("patchesAfter")) {
            throw new UnsupportedOperationException(method.getName());
          }
          Iterator<LoggedCommit> it = new Iterator<>() {
            private long next = 1;

            @Override
            public boolean hasNext() {
              if (next > count && failure != null) {
                throw failure;
              }
              return next <= count;
            }

            @Override
            public LoggedCommit next() {
              return commit(next++);
            }
          };
          return StreamSupport.stream(Spliterators.spliteratorUnknownSize(it, 0), false);
        });
  }

  @Test
  void everyCommitArrivesInOrder() {
    // Far more than the queue holds: the reader waits for the fold.
    List<Long> folded = new ArrayList<>();
    try (JournalPrefetch prefetch = new JournalPrefetch(log(5_000, null), 0, "p")) {
      prefetch.forEach(c -> folded.add(c.revision()));
    }
    assertThat(folded).hasSize(5_000);
    for (int i = 0; i < folded.size(); i++) {
      assertThat(folded.get(i)).isEqualTo(i + 1L);
    }
  }

  @Test
  void aFailureOfTheReaderReachesTheCallerAfterEveryCommitReadBeforeIt() {
    // 100 commits: one whole batch of 64, then 36 when the reader fails.
    IllegalStateException failure = new IllegalStateException("damaged journal of p");
    List<Long> folded = new ArrayList<>();
    try (JournalPrefetch prefetch = new JournalPrefetch(log(100, failure), 0, "p")) {
      assertThatThrownBy(() -> prefetch.forEach(c -> folded.add(c.revision())))
          .isSameAs(failure);
    }
    assertThat(folded).hasSize(100);
    assertThat(folded.get(99)).isEqualTo(100L);
  }
}
