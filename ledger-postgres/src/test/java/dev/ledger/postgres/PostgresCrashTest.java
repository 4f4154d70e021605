package dev.ledger.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.ledger.core.CommitResult;
import dev.ledger.core.Cursor;
import dev.ledger.core.Event;
import dev.ledger.core.EventDraft;
import dev.ledger.core.Ledger;
import dev.ledger.core.LedgerOptions;
import dev.ledger.core.RevisionConflictException;
import dev.ledger.core.Versioned;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntSupplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The PostgreSQL server is killed with SIGKILL while clients commit, then restarted on the
 * same data directory. Every failure the clients see is a retryable {@link DatabaseException};
 * each client retries under the same command id until its commit is acknowledged; afterwards
 * every acknowledged commit is in its ledger at the revision it was acknowledged with, and
 * every command id landed exactly once.
 */
class PostgresCrashTest {
  private static final int SCALE = Integer.getInteger("ledger.torture.scale", 1);
  /** Two ledgers, two racing clients on each. */
  private static final int CLIENTS = 4;
  private static final int COMMITS = 60 * SCALE;
  private static final int KILLS = 2 * SCALE;
  private static final Duration DEADLINE = Duration.ofMinutes(3);

  /** The state: commits counted. */
  public record Tally(long commits) {}

  @TempDir Path dir;

  private final Map<String, Map<Long, String>> acked = new ConcurrentHashMap<>();
  private final AtomicInteger acks = new AtomicInteger();
  private final AtomicInteger failures = new AtomicInteger();
  private final AtomicInteger unknownOutcomes = new AtomicInteger();
  private final AtomicInteger replays = new AtomicInteger();
  private final List<Throwable> wrongFailures = new ArrayList<>();

  @Test
  void serverKilledMidLoadLosesNoAcknowledgedCommitAndRetriesLandOnce() throws Exception {
    // Long enough for a commit to wait through a restart instead of giving up.
    LedgerOptions options = LedgerOptions.defaults().withLockTimeout(Duration.ofSeconds(30));
    try (CrashableServer server = CrashableServer.start(dir.resolve("data"));
        PostgresLedgerStore store = PostgresLedgerStore.connect(server.jdbcUrl(), "postgres",
            null, "crash", options)) {
      ExecutorService clients = Executors.newFixedThreadPool(CLIENTS);
      try {
        List<Future<?>> running = new ArrayList<>();
        for (int i = 0; i < CLIENTS; i++) {
          String client = "c" + i;
          Ledger<Tally> ledger = store.ledger("ledger-" + (i % 2), Tally.class);
          running.add(clients.submit(() -> {
            commitAll(ledger, client);
            return null;
          }));
        }
        for (int kill = 1; kill <= KILLS; kill++) {
          int ackTarget = kill * CLIENTS * COMMITS / (KILLS + 1);
          awaitAtLeast("acknowledged commits before kill " + kill, acks::get, ackTarget);
          int failuresBefore = failures.get();
          server.kill();
          awaitAtLeast("failures seen by clients after kill " + kill, failures::get,
              failuresBefore + 1);
          server.restart();
        }
        for (Future<?> f : running) {
          f.get(DEADLINE.toSeconds(), TimeUnit.SECONDS);
        }
      } finally {
        clients.shutdownNow();
      }
      synchronized (wrongFailures) {
        assertThat(wrongFailures).as("failures that were not retryable DatabaseExceptions")
            .isEmpty();
      }
      assertThat(failures.get()).isGreaterThanOrEqualTo(KILLS);
      System.out.printf("crash test: %d kills, %d failures seen, %d with outcome unknown,"
          + " %d retries replayed%n", KILLS, failures.get(), unknownOutcomes.get(),
          replays.get());

      for (int l = 0; l < 2; l++) {
        String root = "ledger-" + l;
        Ledger<Tally> ledger = store.ledger(root, Tally.class);
        Versioned<Tally> head = ledger.load();
        int expected = CLIENTS / 2 * COMMITS;
        assertThat(head.revision()).as(root).isEqualTo(expected);
        assertThat(head.state().commits()).as(root).isEqualTo(expected);
        List<Event> events;
        try (Stream<Event> all = ledger.replay(Cursor.START)) {
          events = all.toList();
        }
        assertThat(events).hasSize(expected);
        Set<String> commands = new HashSet<>();
        Map<Long, String> byRevision = new HashMap<>();
        for (int i = 0; i < events.size(); i++) {
          Event e = events.get(i);
          assertThat(e.sequence()).isEqualTo(i + 1);
          String command = e.payload().get("client").asText() + "-" + e.payload().get("k").asInt();
          assertThat(commands.add(command)).as("command %s landed twice", command).isTrue();
          byRevision.put(e.revision(), command);
        }
        assertThat(acked.get(root)).as("acknowledged commits of %s, by revision", root)
            .isEqualTo(byRevision);
      }
    }
  }

  /** Commits COMMITS times, each under its own command id, retrying until acknowledged. */
  private void commitAll(Ledger<Tally> ledger, String client) throws InterruptedException {
    for (int k = 0; k < COMMITS; k++) {
      String command = client + "-" + k;
      EventDraft draft = new EventDraft("tick", JsonNodeFactory.instance.objectNode()
          .put("client", client).put("k", k), command, null);
      CommitResult result = null;
      while (result == null) {
        try {
          Versioned<Tally> now = ledger.find().orElse(null);
          long revision = now == null ? Ledger.NO_REVISION : now.revision();
          long commits = now == null ? 0 : now.state().commits();
          result = ledger.commit(revision, new Tally(commits + 1), draft);
        } catch (RevisionConflictException e) {
          // the other client of this ledger won the revision: read again
        } catch (DatabaseException e) {
          failures.incrementAndGet();
          if (e.outcomeUnknown()) {
            unknownOutcomes.incrementAndGet();
          }
          if (!e.retryable()) {
            record(e);
            return;
          }
          Thread.sleep(50); // back off while the server restarts
        } catch (RuntimeException e) {
          record(e);
          return;
        }
      }
      if (result.replayed()) {
        replays.incrementAndGet();
      }
      String previous = acked.computeIfAbsent(ledger.rootId(), r -> new ConcurrentHashMap<>())
          .put(result.revision(), command);
      if (previous != null) {
        record(new AssertionError("revision " + result.revision() + " of " + ledger.rootId()
            + " acknowledged to " + previous + " and " + command));
      }
      acks.incrementAndGet();
    }
  }

  private void record(Throwable t) {
    synchronized (wrongFailures) {
      wrongFailures.add(t);
    }
    failures.incrementAndGet();
  }

  private void awaitAtLeast(String what, IntSupplier value, int target)
      throws InterruptedException {
    long deadline = System.nanoTime() + DEADLINE.toNanos();
    while (value.getAsInt() < target) {
      synchronized (wrongFailures) {
        assertThat(wrongFailures).as("failures that were not retryable DatabaseExceptions")
            .isEmpty();
      }
      assertThat(System.nanoTime()).as("%s: %d of %d within %s", what, value.getAsInt(),
          target, DEADLINE).isLessThan(deadline);
      Thread.sleep(5);
    }
  }
}
