package dev.ledger.testing.examples;

import static dev.ledger.testing.DirectoryAssert.assertThatDirectory;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ledger.core.LedgerStore;
import dev.ledger.core.fs.FileLedgerStore;
import dev.ledger.testing.LedgerStoresExtension;
import dev.ledger.testing.StoreKind;
import dev.ledger.testing.TestClock;
import dev.ledger.testing.TestStore;
import dev.ledger.testing.base.MutableClock;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * README's examples of the extension and of golden directories, on the {@link Tally}: the
 * snippets between the markers are copied into README.md ({@code ReadmeSnippetsTest} checks
 * that they still are).
 */
// README: extension begin
@ExtendWith(LedgerStoresExtension.class)
class TallyTest {
  @TestStore LedgerStore ledgers;                   // on files, in a fresh temp directory
  @TestClock MutableClock clock;                    // the clock every store of the test uses

  @Test
  void stampsEachAddWithTheTestClock() {
    Tally tally = new Tally(ledgers);
    tally.add("first");
    clock.advance(Duration.ofHours(1));
    tally.add("second");
    assertThat(ledgers.ledger("tally", Tally.Count.class).load().updatedAt())
        .isEqualTo(Instant.parse("2026-01-01T01:00:00Z"));
  }

  @Test
  void countsInMemoryToo(@TestStore(StoreKind.IN_MEMORY) LedgerStore memory) {
    Tally tally = new Tally(memory);
    tally.add("only");
    assertThat(tally.count()).isEqualTo(1);
  }
  // README: extension end

  // README: golden begin
  @Test
  void writesExactlyTheGoldenFiles(FileLedgerStore files) {
    Tally tally = new Tally(files);
    tally.add("first");
    tally.add("second");
    files.close();                                  // a closed store's lock file is empty
    assertThatDirectory(files.base()).matchesGolden("golden/tally");
  }
  // README: golden end
}
