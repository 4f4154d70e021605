package dev.ledger.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectMethod;

import dev.ledger.artifacts.ArtifactSnapshot;
import dev.ledger.artifacts.ArtifactStore;
import dev.ledger.artifacts.AttemptSubmission;
import dev.ledger.artifacts.fs.FileArtifactStore;
import dev.ledger.artifacts.memory.InMemoryArtifactStore;
import dev.ledger.core.CommitResult;
import dev.ledger.core.Ledger;
import dev.ledger.core.LedgerStore;
import dev.ledger.core.StoreClosedException;
import dev.ledger.core.fs.FileLedgerStore;
import dev.ledger.core.memory.InMemoryLedgerStore;
import dev.ledger.testing.base.MutableClock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.testkit.engine.EngineTestKit;
import org.junit.platform.testkit.engine.Events;

/**
 * The extension, run on sample test classes through the JUnit engine: what it injects, that
 * the stores share the test's clock, and that every store is closed and the directory deleted
 * after each test, failed or not.
 */
class LedgerStoresExtensionTest {
  /** What the samples saw, for the assertions after their run. */
  static final List<Object> SEEN = new ArrayList<>();

  record Note(String text) {}

  static Events run(Class<?> sample) {
    SEEN.clear();
    return EngineTestKit.engine("junit-jupiter").selectors(selectClass(sample)).execute()
        .testEvents();
  }

  static Events run(Class<?> sample, String method) {
    SEEN.clear();
    java.lang.reflect.Method found = java.util.Arrays.stream(sample.getDeclaredMethods())
        .filter(m -> m.getName().equals(method)).findFirst().orElseThrow();
    return EngineTestKit.engine("junit-jupiter").selectors(selectMethod(sample, found))
        .execute().testEvents();
  }

  static Throwable failureOf(Events events) {
    return events.failed().stream().findFirst().orElseThrow()
        .getPayload(TestExecutionResult.class).orElseThrow().getThrowable().orElseThrow();
  }

  // ------------------------------------------------------------------ samples

  @ExtendWith(LedgerStoresExtension.class)
  static class ByParameter {
    @Test
    void commitsOnTheTestClock(LedgerStore ledgers, ArtifactStore artifacts,
        MutableClock clock) {
      SEEN.add(ledgers);
      SEEN.add(artifacts);
      clock.advance(Duration.ofMinutes(5));
      CommitResult result = ledgers.ledger("root", Note.class)
          .commit(Ledger.NO_REVISION, new Note("hello"));
      SEEN.add(result.committedAt());
      clock.set(Instant.parse("2030-01-01T00:00:00Z"));
      ArtifactSnapshot snapshot = artifacts.freeze("root", "attempt-1",
          AttemptSubmission.of("done", List.of(), List.of()));
      SEEN.add(snapshot.frozenAt());
    }

    @Test
    void failsAfterWriting(FileLedgerStore ledgers) {
      SEEN.add(ledgers);
      ledgers.ledger("root", Note.class).commit(Ledger.NO_REVISION, new Note("written"));
      throw new AssertionError("deliberate failure");
    }
  }

  @ExtendWith(LedgerStoresExtension.class)
  static class ByField {
    @TestStore LedgerStore fileLedgers;
    @TestStore(StoreKind.IN_MEMORY) LedgerStore memoryLedgers;
    @TestStore FileArtifactStore fileArtifacts;
    @TestStore(StoreKind.IN_MEMORY) ArtifactStore memoryArtifacts;
    @TestClock MutableClock clock;

    @BeforeEach
    void fieldsAreSetBeforeEach(FileLedgerStore sameFileLedgers) {
      assertThat(sameFileLedgers).isSameAs(fileLedgers);
    }

    @Test
    void bothKinds(@TestStore(StoreKind.IN_MEMORY) LedgerStore sameMemoryLedgers,
        InMemoryArtifactStore sameMemoryArtifacts, MutableClock sameClock) {
      SEEN.addAll(List.of(fileLedgers, memoryLedgers, fileArtifacts, memoryArtifacts));
      assertThat(fileLedgers).isInstanceOf(FileLedgerStore.class);
      assertThat(memoryLedgers).isInstanceOf(InMemoryLedgerStore.class);
      assertThat(memoryArtifacts).isInstanceOf(InMemoryArtifactStore.class);
      assertThat(sameMemoryLedgers).isSameAs(memoryLedgers);
      assertThat(sameMemoryArtifacts).isSameAs(memoryArtifacts);
      assertThat(sameClock).isSameAs(clock);
      assertThat(clock.instant()).isEqualTo(LedgerStoresExtension.START);
      // The file stores share one base directory.
      assertThat(fileArtifacts.directory()).startsWith(((FileLedgerStore) fileLedgers).base());
      assertThat(fileLedgers.options().clock()).isSameAs(clock);
      assertThat(memoryLedgers.options().clock()).isSameAs(clock);
    }

    @Test
    void eachTestGetsFreshStores() {
      SEEN.addAll(List.of(fileLedgers, memoryLedgers, fileArtifacts, memoryArtifacts));
      assertThat(fileLedgers.rootIds()).isEmpty();
    }
  }

  static class WithOptions {
    @RegisterExtension
    static final LedgerStoresExtension STORES = new LedgerStoresExtension()
        .withOptions(options -> options.withCheckpointInterval(3));

    @Test
    void optionsApply(LedgerStore ledgers, MutableClock clock) {
      assertThat(ledgers.options().checkpointInterval()).isEqualTo(3);
      assertThat(ledgers.options().clock()).isSameAs(clock);
    }
  }

  static class OptionsDroppingTheClock {
    @RegisterExtension
    static final LedgerStoresExtension STORES = new LedgerStoresExtension()
        .withOptions(options -> options.withClock(java.time.Clock.systemUTC()));

    @Test
    void refused(LedgerStore ledgers) {
      SEEN.add(ledgers);
    }
  }

  @ExtendWith(LedgerStoresExtension.class)
  static class ContradictoryKind {
    @Test
    void refused(@TestStore(StoreKind.FILE) InMemoryLedgerStore ledgers) {
      SEEN.add(ledgers);
    }
  }

  @ExtendWith(LedgerStoresExtension.class)
  static class WrongFieldType {
    @TestStore String notAStore;

    @Test
    void refused() {
      SEEN.add(notAStore);
    }
  }

  // ------------------------------------------------------------------ tests

  @Test
  void parametersGetStoresRunningOnTheTestClock() {
    Events events = run(ByParameter.class, "commitsOnTheTestClock");
    assertThat(events.succeeded().count()).isEqualTo(1);
    assertThat(SEEN.get(0)).isInstanceOf(FileLedgerStore.class);
    assertThat(SEEN.get(1)).isInstanceOf(FileArtifactStore.class);
    assertThat(SEEN.get(2)).isEqualTo(LedgerStoresExtension.START.plus(Duration.ofMinutes(5)));
    assertThat(SEEN.get(3)).isEqualTo(Instant.parse("2030-01-01T00:00:00Z"));
    assertClosed((LedgerStore) SEEN.get(0));
    assertClosed((ArtifactStore) SEEN.get(1));
  }

  @Test
  void storesAreClosedAndTheirDirectoryDeletedWhenTheTestFails() {
    Events events = run(ByParameter.class, "failsAfterWriting");
    assertThat(events.failed().count()).isEqualTo(1);
    assertThat(failureOf(events)).hasMessage("deliberate failure");
    FileLedgerStore store = (FileLedgerStore) SEEN.get(0);
    assertClosed(store);
    assertThat(store.base()).doesNotExist();
    assertThat(store.base().getParent()).doesNotExist();
  }

  @Test
  void fieldsGetBothKindsAndEachTestItsOwnStores() {
    Events events = run(ByField.class);
    assertThat(events.succeeded().count()).isEqualTo(2);
    assertThat(SEEN).hasSize(8).doesNotHaveDuplicates();
    for (Object store : SEEN) {
      if (store instanceof LedgerStore ledgers) {
        assertClosed(ledgers);
      } else {
        assertClosed((ArtifactStore) store);
      }
    }
  }

  @Test
  void optionsCanBeChangedButMustKeepTheClock() {
    assertThat(run(WithOptions.class).succeeded().count()).isEqualTo(1);
    Events refused = run(OptionsDroppingTheClock.class);
    assertThat(refused.failed().count()).isEqualTo(1);
    assertThat(failureOf(refused)).hasMessageContaining("withOptions must keep the test's clock");
    assertThat(SEEN).isEmpty();
  }

  @Test
  void contradictionsAreRefusedNamingTheParameterOrField() {
    Events kind = run(ContradictoryKind.class);
    assertThat(kind.failed().count()).isEqualTo(1);
    assertThat(failureOf(kind))
        .hasMessageContaining("a InMemoryLedgerStore cannot be a FILE store");
    Events type = run(WrongFieldType.class);
    assertThat(type.failed().count()).isEqualTo(1);
    assertThat(failureOf(type)).hasMessageContaining("notAStore");
    assertThat(SEEN).isEmpty();
  }

  private static void assertClosed(LedgerStore store) {
    assertThatThrownBy(store::rootIds).as("%s closed", store)
        .isInstanceOf(StoreClosedException.class);
  }

  private static void assertClosed(ArtifactStore store) {
    assertThatThrownBy(() -> store.blobs().put(new byte[] {1})).as("%s closed", store)
        .isInstanceOf(StoreClosedException.class);
  }

  @Test
  void theDirectoryIsATemporaryOne() {
    run(ByParameter.class, "commitsOnTheTestClock");
    Path base = ((FileLedgerStore) SEEN.get(0)).base();
    assertThat(base.getParent().getFileName().toString()).startsWith("ledger-test-");
    assertThat(base.getParent().getParent()).isEqualTo(
        Path.of(System.getProperty("java.io.tmpdir")).toAbsolutePath());
    assertThat(Files.exists(base)).isFalse();
  }
}
