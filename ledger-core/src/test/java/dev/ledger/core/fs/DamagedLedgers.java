package dev.ledger.core.fs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ledger.core.CommitResult;
import dev.ledger.core.Cursor;
import dev.ledger.core.Durability;
import dev.ledger.core.Ledger;
import dev.ledger.core.LedgerStore;
import dev.ledger.core.VerifyReport;
import dev.ledger.core.fs.AckingCommitter.Tick;
import dev.ledger.core.internal.json.LedgerJson;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;

/**
 * A store of ledgers whose checkpoint and command index are damaged while their journals are
 * intact: what {@link FileLedgerStore#repair} is for. The repair crash and fault loops start
 * from it and check what a repair cut short leaves.
 *
 * <p>Every ledger {@code r-i} has {@value #COMMITS} commits of {@link AckingCommitter} (a
 * checkpoint every 5, 4 KiB segments). Even ledgers lose their {@code state.json} and two
 * command entries: verify finds nothing, since a ledger without a checkpoint owes no entry,
 * but loads replay the whole journal and the lost commands would not replay. Odd ledgers get
 * a {@code state.json} that does not parse, one command entry of garbage, one deleted and a
 * stray one under a name no command hashes to:
 * verify reports damage and {@code load()} fails until repaired.
 */
final class DamagedLedgers {
  static final int COMMITS = 12;

  private DamagedLedgers() {}

  static String root(int i) {
    return "r-" + i;
  }

  /** Writes {@code count} ledgers into {@code base} and damages them. */
  static void write(Path base, int count) {
    // Written without forces: the bytes are the same, and the tests start from copies.
    try (FileLedgerStore store = FileLedgerStore.open(base,
        AckingCommitter.options().withDurability(Durability.UNSAFE_NO_SYNC))) {
      for (int i = 0; i < count; i++) {
        Ledger<Tick> ledger = store.ledger(root(i), Tick.class);
        for (long r = 1; r <= COMMITS; r++) {
          ledger.commit(r - 1, AckingCommitter.state(r), AckingCommitter.events(r));
        }
      }
    }
    try {
      for (int i = 0; i < count; i++) {
        Path state = VerifyFixture.ledgerDir(base, root(i)).resolve("state.json");
        List<Path> entries = VerifyFixture.commandEntries(base, root(i));
        assertThat(state).exists();
        assertThat(entries).hasSize(COMMITS);
        if (i % 2 == 0) {
          Files.delete(state);
          Files.delete(entries.get(1));
          Files.delete(entries.get(7));
        } else {
          Files.writeString(state, "{\"format\": 2, \"revi");
          Files.writeString(entries.get(2), "garbage");
          Files.delete(entries.get(5));
          // An entry under a name no command hashes to: the repair removes it.
          Files.copy(entries.get(3), entries.get(3).resolveSibling("0".repeat(62) + ".json"));
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Copies a store directory, file by file. */
  static void copy(Path from, Path to) throws IOException {
    try (Stream<Path> all = Files.walk(from)) {
      for (Path p : all.toList()) {
        Path target = to.resolve(from.relativize(p).toString());
        if (Files.isDirectory(p)) {
          Files.createDirectories(target);
        } else {
          Files.copy(p, target);
        }
      }
    }
  }

  /** Every journal file of the store, with its content hash: what repair must not touch. */
  static Map<String, String> journals(Path base, int count) {
    Map<String, String> all = new TreeMap<>();
    try {
      for (int i = 0; i < count; i++) {
        Path journal = VerifyFixture.ledgerDir(base, root(i)).resolve("journal");
        try (Stream<Path> files = Files.list(journal)) {
          for (Path file : files.toList()) {
            all.put(root(i) + "/" + file.getFileName(),
                LedgerJson.sha256Hex(Files.readAllBytes(file)));
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return all;
  }

  /** The damage verify finds, as "kind ledger file" lines relative to {@code base}. */
  static Set<String> damage(FileLedgerStore store, Path base) {
    Set<String> damage = new TreeSet<>();
    for (VerifyReport.Finding finding : store.verify().damage()) {
      damage.add(finding.kind() + " " + finding.rootId() + " "
          + base.toAbsolutePath().relativize(finding.file().toAbsolutePath()));
    }
    return damage;
  }

  /** Every commit of {@code root} is there: state, events, and every command replays. */
  static void assertWhole(LedgerStore store, String root, String context) {
    Ledger<Tick> ledger = store.ledger(root, Tick.class);
    assertThat(ledger.load().revision()).as("%s: revision of %s", context, root)
        .isEqualTo(COMMITS);
    assertThat(ledger.load().state()).as(context).isEqualTo(AckingCommitter.state(COMMITS));
    assertThat(ledger.events(Cursor.START, 100).events()).as(context).hasSize(COMMITS);
    for (long r = 1; r <= COMMITS; r++) {
      assertThat(ledger.command(AckingCommitter.commandId(r))).as("%s: %s command %s",
          context, root, r).map(CommitResult::revision).contains(r);
    }
  }
}
