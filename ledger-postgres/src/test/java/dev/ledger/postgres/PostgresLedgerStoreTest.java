package dev.ledger.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ledger.core.Cursor;
import dev.ledger.core.Event;
import dev.ledger.core.EventDraft;
import dev.ledger.core.EventFollower;
import dev.ledger.core.Ledger;
import dev.ledger.core.LedgerException;
import dev.ledger.core.LedgerOptions;
import dev.ledger.core.LedgerStore;
import dev.ledger.core.fs.FileLedgerStore;
import dev.ledger.testing.base.MutableClock;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What the contract suite does not cover: migration races, reconnection, refusals. */
class PostgresLedgerStoreTest {
  private static final Duration DEADLINE = Duration.ofSeconds(20);

  /** A ledger state for these tests. */
  public record Counter(long value) {}

  /**
   * A commit sends its events as no insert, one row of scalars or arrays, by their number:
   * whichever statement ran, the events read back (ids, sequences, revisions, times, payloads,
   * command and operation ids) and the replayed command are those of the file store given the
   * same commits at the same times.
   */
  @Test
  void commitsOfNoneOneOrSeveralEventsReadBackAsOnFiles(@TempDir Path dir) {
    MutableClock clock = new MutableClock(Instant.parse("2026-03-01T10:00:00.123456789Z"));
    LedgerOptions options = LedgerOptions.defaults().withClock(clock);
    List<List<Event>> read = new ArrayList<>();
    try (PostgresLedgerStore pg = PostgresLedgerStore.open(TestDatabase.dataSource(),
            TestDatabase.freshSchema(), options);
        FileLedgerStore files = FileLedgerStore.open(dir, options)) {
      for (LedgerStore store : List.<LedgerStore>of(pg, files)) {
        clock.set(Instant.parse("2026-03-01T10:00:00.123456789Z"));
        Ledger<Counter> ledger = store.ledger("shapes", Counter.class);
        long revision = ledger.commit(Ledger.NO_REVISION, new Counter(1),
            EventDraft.of("one", Map.of("n", 1)).withOperationId("op-1")).revision();
        clock.set(clock.instant().plusMillis(7));
        revision = ledger.commit(revision, new Counter(2)).revision();
        clock.set(clock.instant().plusNanos(1));
        revision = ledger.commit(revision, new Counter(3),
            EventDraft.of("a", Map.of("s", "x\u00e9\"")).withCommandId("cmd-3"),
            EventDraft.of("b", List.of(1, 2)).withCommandId("cmd-3").withOperationId("op-b"),
            EventDraft.of("c", Map.of()).withCommandId("cmd-3")).revision();
        clock.set(clock.instant().plusSeconds(1));
        ledger.commit(revision, new Counter(4),
            EventDraft.of("single", Map.of("k", "v")).withCommandId("cmd-4"));
        assertThat(ledger.commit(revision, new Counter(4),
            EventDraft.of("single", Map.of("k", "v")).withCommandId("cmd-4")).replayed())
            .isTrue();
        read.add(ledger.events(Cursor.START, 100).events());
      }
    }
    assertThat(read.get(0)).hasSize(5).containsExactlyElementsOf(read.get(1));
  }

  @Test
  void storesOpeningAtOnceMigrateTheSchemaOnce() throws Exception {
    String schema = TestDatabase.freshSchema();
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<PostgresLedgerStore>> opening = new ArrayList<>();
      for (int i = 0; i < 4; i++) {
        Callable<PostgresLedgerStore> open = () -> PostgresLedgerStore.open(
            TestDatabase.dataSource(), schema, LedgerOptions.defaults());
        opening.add(pool.submit(open));
      }
      for (Future<PostgresLedgerStore> store : opening) {
        store.get().close();
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(versions(schema)).containsExactlyElementsOf(
        java.util.stream.IntStream.rangeClosed(1, Schema.VERSION).boxed().toList());
  }

  /**
   * A version 5 schema, whose event rows hold their time and id, migrates to version 6 when a
   * store opens it: its events read back as they were, new commits store neither column
   * (both are derived: the commit's time, the id of root and sequence), and the journal read
   * over old and new rows is the file store's given the same commits at the same times.
   */
  @Test
  void aVersion5SchemaMigratesAndItsEventsReadAsBefore(@TempDir Path dir) throws Exception {
    MutableClock clock = new MutableClock(Instant.parse("2026-03-01T10:00:00.123456789Z"));
    LedgerOptions options = LedgerOptions.defaults().withClock(clock);
    String old = TestDatabase.freshSchema();
    String current = TestDatabase.freshSchema();
    Schema.migrate(TestDatabase.dataSource(), old, 5);
    assertThat(versions(old)).containsExactly(1, 2, 3, 4, 5);
    List<Event> expected;
    try (FileLedgerStore files = FileLedgerStore.open(dir, options);
        PostgresLedgerStore pg = PostgresLedgerStore.open(TestDatabase.dataSource(), current,
            options)) {
      for (LedgerStore store : List.<LedgerStore>of(files, pg)) {
        clock.set(Instant.parse("2026-03-01T10:00:00.123456789Z"));
        Ledger<Counter> ledger = store.ledger("old", Counter.class);
        long revision = ledger.commit(Ledger.NO_REVISION, new Counter(1),
            EventDraft.of("one", Map.of("n", 1))).revision();
        clock.set(clock.instant().plusMillis(3));
        ledger.commit(revision, new Counter(2), EventDraft.of("two", Map.of("n", 2)),
            EventDraft.of("three", List.of()).withOperationId("op-3"));
      }
      expected = files.ledger("old", Counter.class).events(Cursor.START, 100).events();
    }
    // The rows a version 5 store wrote: every event with its time and id.
    execute("INSERT INTO " + old + ".ledgers SELECT * FROM " + current + ".ledgers");
    execute("INSERT INTO " + old + ".commits SELECT * FROM " + current + ".commits");
    execute("INSERT INTO " + old + ".events (root_id, sequence, revision, type, payload,"
        + " operation_id, command_id, occurred_at, id) SELECT e.root_id, e.sequence,"
        + " e.revision, e.type, e.payload, e.operation_id, e.command_id, m.committed_at, v.id"
        + " FROM " + current + ".events e JOIN " + current + ".commits m"
        + " ON m.root_id = e.root_id AND m.revision = e.revision JOIN (VALUES "
        + String.join(", ", expected.stream().map(e -> "(" + e.sequence() + "::bigint, '"
            + e.id() + "')").toList())
        + ") AS v (sequence, id) ON v.sequence = e.sequence");
    assertThat(count("SELECT count(*) FROM " + current + ".events WHERE id IS NULL"
        + " AND occurred_at IS NULL")).isEqualTo(3);
    try (FileLedgerStore files = FileLedgerStore.open(dir, options);
        PostgresLedgerStore migrated = PostgresLedgerStore.open(TestDatabase.dataSource(), old,
            options)) {
      assertThat(versions(old)).containsExactlyElementsOf(
          java.util.stream.IntStream.rangeClosed(1, Schema.VERSION).boxed().toList());
      Ledger<Counter> ledger = migrated.ledger("old", Counter.class);
      assertThat(ledger.events(Cursor.START, 100).events()).containsExactlyElementsOf(expected);
      clock.set(clock.instant().plusSeconds(1));
      for (LedgerStore store : List.<LedgerStore>of(files, migrated)) {
        store.ledger("old", Counter.class).commit(2, new Counter(3),
            EventDraft.of("four", Map.of("n", 4)));
      }
      assertThat(count("SELECT count(*) FROM " + old + ".events WHERE id IS NULL"
          + " AND occurred_at IS NULL")).isEqualTo(1);
      assertThat(count("SELECT count(*) FROM " + old + ".events WHERE id IS NOT NULL"
          + " AND occurred_at IS NOT NULL")).isEqualTo(3);
      List<Event> all = files.ledger("old", Counter.class).events(Cursor.START, 100).events();
      assertThat(all).hasSize(4);
      assertThat(ledger.events(Cursor.START, 100).events()).containsExactlyElementsOf(all);
      assertThat(ledger.replay(Cursor.START).toList()).containsExactlyElementsOf(all);
    }
  }

  @Test
  void aSchemaOfANewerVersionIsRefused() throws Exception {
    String schema = TestDatabase.freshSchema();
    PostgresLedgerStore.open(TestDatabase.dataSource(), schema, LedgerOptions.defaults())
        .close();
    execute("INSERT INTO " + schema + ".schema_version(version) VALUES (" + (Schema.VERSION + 1)
        + ")");
    assertThatThrownBy(() -> PostgresLedgerStore.open(TestDatabase.dataSource(), schema,
        LedgerOptions.defaults()))
        .isInstanceOf(LedgerException.class)
        .hasMessageContaining(schema).hasMessageContaining("version " + (Schema.VERSION + 1));
  }

  @Test
  void invalidSchemaNamesAreRefused() {
    assertThatThrownBy(() -> PostgresLedgerStore.open(TestDatabase.dataSource(), "Bad-Name",
        LedgerOptions.defaults())).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("Bad-Name");
  }

  @Test
  void factoriesRefuseNullsAndForeignUrlsBeforeTouchingTheDatabase() {
    LedgerOptions options = LedgerOptions.defaults();
    assertThatThrownBy(() -> PostgresLedgerStore.open(null))
        .isInstanceOf(NullPointerException.class).hasMessageContaining("dataSource");
    assertThatThrownBy(() -> PostgresLedgerStore.open(TestDatabase.dataSource(), null, options))
        .isInstanceOf(NullPointerException.class).hasMessageContaining("schema");
    assertThatThrownBy(() -> PostgresLedgerStore.open(TestDatabase.dataSource(), "s", null))
        .isInstanceOf(NullPointerException.class).hasMessageContaining("options");
    assertThatThrownBy(() -> PostgresLedgerStore.connect(null, "u", null, "s", options))
        .isInstanceOf(NullPointerException.class).hasMessageContaining("jdbcUrl");
    assertThatThrownBy(() -> PostgresLedgerStore.connect("jdbc:sqlite:x.db", "u", null, "s",
        options)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("sqlite");
  }

  @Test
  void anUnreachableServerIsARetryableDatabaseException() throws Exception {
    int port;
    try (java.net.ServerSocket free = new java.net.ServerSocket(0)) {
      port = free.getLocalPort();
    }
    org.postgresql.ds.PGSimpleDataSource nowhere = new org.postgresql.ds.PGSimpleDataSource();
    nowhere.setUrl("jdbc:postgresql://127.0.0.1:" + port + "/postgres");
    assertThatThrownBy(() -> PostgresLedgerStore.open(nowhere, "s", LedgerOptions.defaults()))
        .isInstanceOfSatisfying(DatabaseException.class, e -> {
          assertThat(e.retryable()).isTrue();
          assertThat(e.sqlState()).startsWith("08");
          assertThat(e.getMessage()).contains("schema 's'");
        });
  }

  @Test
  void aStoreOverItsOwnPoolSeesTheSameLedgers() {
    String schema = TestDatabase.freshSchema();
    try (PostgresLedgerStore shared = PostgresLedgerStore.open(TestDatabase.dataSource(), schema,
            LedgerOptions.defaults());
        PostgresLedgerStore owned = PostgresLedgerStore.connect(TestDatabase.jdbcUrl(),
            "postgres", null, schema, LedgerOptions.defaults())) {
      shared.ledger("a", Counter.class).commit(Ledger.NO_REVISION, new Counter(1));
      assertThat(owned.ledger("a", Counter.class).load().state()).isEqualTo(new Counter(1));
      assertThat(owned.rootIds()).containsExactly("a");
    }
  }

  /** A state with a field the commits below leave alone, so that patches omit it. */
  public record Tagged(long value, String tag) {}

  @Test
  void aLedgerDeletedAndCreatedAgainByAnotherStoreIsNotWrittenFromAStaleHint() {
    String schema = TestDatabase.freshSchema();
    try (PostgresLedgerStore here = PostgresLedgerStore.open(TestDatabase.dataSource(), schema,
            LedgerOptions.defaults());
        PostgresLedgerStore elsewhere = PostgresLedgerStore.connect(TestDatabase.jdbcUrl(),
            "postgres", null, schema, LedgerOptions.defaults())) {
      Ledger<Tagged> mine = here.ledger("r", Tagged.class);
      long revision = mine.commit(Ledger.NO_REVISION, new Tagged(1, "same"),
          EventDraft.of("old", Map.of("n", 1)), EventDraft.of("old", Map.of("n", 2)),
          EventDraft.of("old", Map.of("n", 3))).revision();
      revision = mine.commit(revision, new Tagged(2, "same"),
          EventDraft.of("old", Map.of("n", 4))).revision();
      // This store now remembers revision 2, next sequence 5, tag "same".

      assertThat(elsewhere.delete("r")).isTrue();
      Ledger<Tagged> theirs = elsewhere.ledger("r", Tagged.class);
      long again = theirs.commit(Ledger.NO_REVISION, new Tagged(10, "other"),
          EventDraft.of("new", Map.of("n", 1))).revision();
      assertThat(theirs.commit(again, new Tagged(20, "other")).revision()).isEqualTo(2);

      // Revision 2 again, of another ledger: the commit must follow that one.
      var result = mine.commit(2, new Tagged(30, "same"), EventDraft.of("new", Map.of("n", 2)));
      assertThat(result.revision()).isEqualTo(3);
      assertThat(result.events()).singleElement()
          .satisfies(e -> assertThat(e.sequence()).isEqualTo(2));

      List<Event> events;
      try (var all = theirs.replay(Cursor.START)) {
        events = all.toList();
      }
      assertThat(events).extracting(Event::sequence).containsExactly(1L, 2L);
      assertThat(events).extracting(Event::type).containsExactly("new", "new");
      assertThat(theirs.load().state()).isEqualTo(new Tagged(30, "same"));

      // The journal's patches rebuild the same state: export and import elsewhere.
      var out = new java.io.ByteArrayOutputStream();
      elsewhere.export("r", out);
      try (PostgresLedgerStore copy = PostgresLedgerStore.open(TestDatabase.dataSource(),
          TestDatabase.freshSchema(), LedgerOptions.defaults())) {
        copy.importLedger(new java.io.ByteArrayInputStream(out.toByteArray()));
        assertThat(copy.ledger("r", Tagged.class).load().state())
            .isEqualTo(new Tagged(30, "same"));
      }
    }
  }

  @Test
  void followerResumesWithoutLossOrDuplicateAfterTheListeningConnectionIsKilled()
      throws Exception {
    String schema = TestDatabase.freshSchema();
    try (PostgresLedgerStore reading = PostgresLedgerStore.open(TestDatabase.dataSource(),
            schema, LedgerOptions.defaults());
        PostgresLedgerStore writing = PostgresLedgerStore.open(TestDatabase.dataSource(),
            schema, LedgerOptions.defaults())) {
      // Only a notification or a reconnection may wake the follower: no polling.
      reading.pollBoundNanos(Long.MAX_VALUE);
      Ledger<Counter> writer = writing.ledger("resume", Counter.class);
      long revision = commit(writer, Ledger.NO_REVISION, 3);
      try (EventFollower follower = reading.ledger("resume", Counter.class)
          .follow(Cursor.START, 2)) {
        List<Long> seen = new ArrayList<>();
        receive(follower, seen, 3);
        CommitListener listener = reading.listener();
        awaitTrue("the listener is connected", () -> listener.backendPid() != 0);
        int pid = listener.backendPid();
        execute("SELECT pg_terminate_backend(" + pid + ")");
        // Committed while the listener is down or reconnecting: no notification reaches it.
        revision = commit(writer, revision, 4);
        receive(follower, seen, 7);
        awaitTrue("the listener reconnected", () -> listener.connections() >= 2
            && listener.backendPid() != 0 && listener.backendPid() != pid);
        commit(writer, revision, 2);
        receive(follower, seen, 9);
        assertThat(seen).containsExactly(1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L);
        assertThat(follower.poll()).isEmpty();
      }
    }
  }

  private static long commit(Ledger<Counter> ledger, long revision, int events) {
    List<EventDraft> drafts = new ArrayList<>();
    for (int i = 0; i < events; i++) {
      drafts.add(EventDraft.of("tick", Map.of("i", i)));
    }
    return ledger.commit(revision, new Counter(revision + 1), drafts).revision();
  }

  private static void receive(EventFollower follower, List<Long> seen, int total)
      throws InterruptedException {
    long deadline = System.nanoTime() + DEADLINE.toNanos();
    while (seen.size() < total) {
      long left = deadline - System.nanoTime();
      assertThat(left).as("events %s arrive in time; have %s", total, seen).isPositive();
      Optional<Event> next = follower.next(Duration.ofNanos(left));
      next.ifPresent(e -> seen.add(e.sequence()));
    }
  }

  private static void awaitTrue(String what, BooleanSupplier condition)
      throws InterruptedException {
    long deadline = System.nanoTime() + DEADLINE.toNanos();
    while (!condition.getAsBoolean()) {
      assertThat(System.nanoTime() < deadline).as("not within %s: %s", DEADLINE, what).isTrue();
      Thread.sleep(10);
    }
  }

  private static List<Integer> versions(String schema) throws Exception {
    try (Connection c = TestDatabase.dataSource().getConnection();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT version FROM " + schema
            + ".schema_version ORDER BY version")) {
      List<Integer> out = new ArrayList<>();
      while (rs.next()) {
        out.add(rs.getInt(1));
      }
      return out;
    }
  }

  private static long count(String sql) throws Exception {
    try (Connection c = TestDatabase.dataSource().getConnection();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  private static void execute(String sql) throws Exception {
    try (Connection c = TestDatabase.dataSource().getConnection();
        Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }
}
