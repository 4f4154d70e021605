package dev.ledger.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ledger.core.CommitResult;
import dev.ledger.core.Cursor;
import dev.ledger.core.Event;
import dev.ledger.core.EventDraft;
import dev.ledger.core.ImportResult;
import dev.ledger.core.InvalidExportException;
import dev.ledger.core.Ledger;
import dev.ledger.core.LedgerExistsException;
import dev.ledger.core.LedgerNotFoundException;
import dev.ledger.core.LedgerOptions;
import dev.ledger.core.LedgerStore;
import dev.ledger.core.Versioned;
import dev.ledger.core.memory.InMemoryLedgerStore;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The export and import contract ({@link LedgerStore#export}, {@link LedgerStore#importLedger}):
 * a round trip rebuilds an equivalent ledger, in the same kind of store and across kinds; bad
 * input and existing ledgers are refused without a change; an export beside a writer is a
 * consistent prefix. It runs as part of {@link LedgerStoreContractTest} (its nested
 * {@code Exporting} class), on the stores that suite opens.
 */
public abstract class LedgerExportContract {
  private static final String ROOT = "export-1";
  private static final int COMMITS = 25;

  private final List<LedgerStore> opened = new ArrayList<>();

  /** For {@link LedgerStoreContractTest}'s nested class only. */
  LedgerExportContract() {}

  /**
   * Opens a fresh, empty store.
   *
   * @param options the options to open it with
   * @return the store
   */
  protected abstract LedgerStore newStore(LedgerOptions options);

  /**
   * The options of the suite's stores.
   *
   * @return the options
   */
  protected abstract LedgerOptions baseOptions();

  private LedgerStore open() {
    LedgerStore store = newStore(baseOptions());
    opened.add(store);
    return store;
  }

  @AfterEach
  void closeAll() {
    opened.forEach(LedgerStore::close);
  }

  /**
   * A state whose long text makes most records merge patches.
   *
   * @param text unchanging filler
   * @param counts what changes
   */
  public record Doc(String text, Map<String, Integer> counts) {
    Doc with(String key) {
      Map<String, Integer> next = new TreeMap<>(counts);
      next.merge(key, 1, Integer::sum);
      return new Doc(text, next);
    }
  }

  private static List<EventDraft> drafts(int i) {
    return List.of(EventDraft.of("step", Map.of("i", i)).withCommandId("cmd-" + i),
        EventDraft.of("note", Map.of("i", i)).withCommandId("cmd-" + i)
            .withOperationId("op-" + i));
  }

  private static Doc fill(LedgerStore store) {
    Ledger<Doc> ledger = store.ledger(ROOT, Doc.class);
    Doc doc = new Doc("x".repeat(500), Map.of());
    for (int i = 1; i <= COMMITS; i++) {
      doc = doc.with("k" + (i % 4));
      ledger.commit(i - 1, doc, drafts(i));
    }
    return doc;
  }

  private static byte[] export(LedgerStore store, String root) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    store.export(root, out);
    return out.toByteArray();
  }

  private static ImportResult importInto(LedgerStore store, byte[] export) {
    return store.importLedger(new ByteArrayInputStream(export));
  }

  private static List<Event> events(Ledger<?> ledger) {
    try (Stream<Event> all = ledger.replay(Cursor.START)) {
      return all.toList();
    }
  }

  /** The ledger in {@code target} equals the one in {@code source}, commands included. */
  private static void assertSameLedger(LedgerStore source, LedgerStore target) {
    Ledger<Doc> from = source.ledger(ROOT, Doc.class);
    Ledger<Doc> to = target.ledger(ROOT, Doc.class);
    Versioned<Doc> state = from.load();
    assertThat(to.load()).isEqualTo(state);
    assertThat(events(to)).isEqualTo(events(from));
    assertThat(target.rootIds()).contains(ROOT);
    for (int i = 1; i <= state.revision(); i++) {
      CommitResult original = from.command("cmd-" + i).orElseThrow();
      CommitResult found = to.command("cmd-" + i).orElseThrow();
      // Cursors are the store's own tokens; everything else is the same, and the target's
      // cursor reads on in the target.
      assertThat(found).usingRecursiveComparison().ignoringFields("cursor").as("cmd-" + i)
          .isEqualTo(original);
      assertThat(to.events(found.cursor(), 1000).events())
          .isEqualTo(from.events(original.cursor(), 1000).events());
      CommitResult retry = to.commit(state.revision(), state.state(), drafts(i));
      assertThat(retry.replayed()).isTrue();
      assertThat(retry.revision()).isEqualTo(i);
    }
  }

  @Test
  void exportThenImportRebuildsAnEquivalentLedger() {
    LedgerStore source = open();
    Doc last = fill(source);
    byte[] exported = export(source, ROOT);
    LedgerStore target = open();
    ImportResult result = importInto(target, exported);
    assertThat(result).isEqualTo(new ImportResult(ROOT, COMMITS, 2L * COMMITS, COMMITS));
    assertSameLedger(source, target);
    // Same clock, same ledger: the same bytes.
    assertThat(export(target, ROOT)).isEqualTo(exported);
    Ledger<Doc> ledger = target.ledger(ROOT, Doc.class);
    CommitResult next = ledger.commit(COMMITS, last.with("after"),
        EventDraft.of("after", Map.of()));
    assertThat(next.revision()).isEqualTo(COMMITS + 1);
    assertThat(next.events().get(0).sequence()).isEqualTo(2L * COMMITS + 1);
  }

  @Test
  void anExportMovesBetweenThisStoreAndTheInMemoryStore() {
    LedgerStore source = open();
    fill(source);
    byte[] exported = export(source, ROOT);
    try (LedgerStore memory = InMemoryLedgerStore.create(baseOptions())) {
      importInto(memory, exported);
      assertSameLedger(source, memory);
      LedgerStore back = open();
      importInto(back, export(memory, ROOT));
      assertSameLedger(source, back);
    }
  }

  @Test
  void exportOfAMissingLedgerIsRefused() {
    LedgerStore store = open();
    assertThatThrownBy(() -> export(store, "nobody"))
        .isInstanceOf(LedgerNotFoundException.class).hasMessageContaining("nobody");
  }

  private static List<byte[]> lines(byte[] export) {
    List<byte[]> lines = new ArrayList<>();
    int start = 0;
    for (int i = 0; i < export.length; i++) {
      if (export[i] == '\n') {
        lines.add(Arrays.copyOfRange(export, start, i + 1));
        start = i + 1;
      }
    }
    return lines;
  }

  private static byte[] join(List<byte[]> lines) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    lines.forEach(out::writeBytes);
    return out.toByteArray();
  }

  /** Imports {@code input} into a store holding one other ledger; expects nothing to change. */
  private void assertRefused(byte[] input, Class<? extends RuntimeException> type,
      String message) {
    LedgerStore target = open();
    target.ledger("other", Doc.class).commit(0, new Doc("o", Map.of()));
    byte[] before = export(target, "other");
    assertThatThrownBy(() -> importInto(target, input)).isInstanceOf(type)
        .hasMessageContaining(message);
    assertThat(target.rootIds()).containsExactly("other");
    assertThat(target.ledger(ROOT, Doc.class).find()).isEmpty();
    assertThat(export(target, "other")).isEqualTo(before);
  }

  @Test
  void badInputIsRefusedWithoutAChange() {
    LedgerStore source = open();
    fill(source);
    byte[] exported = export(source, ROOT);
    List<byte[]> lines = lines(exported);
    assertRefused(join(lines.subList(0, lines.size() - 1)), InvalidExportException.class,
        "truncated");
    assertRefused(Arrays.copyOf(exported, exported.length - 3), InvalidExportException.class,
        "truncated");
    byte[] flipped = exported.clone();
    int middle = lines.get(0).length + lines.get(1).length + lines.get(2).length / 2;
    flipped[middle] ^= 0x04;
    assertRefused(flipped, InvalidExportException.class, "line 3");
    assertRefused(join(lines.subList(1, lines.size())), InvalidExportException.class,
        "not a ledger export header");
    List<byte[]> swapped = new ArrayList<>(lines);
    swapped.set(1, lines.get(2));
    swapped.set(2, lines.get(1));
    assertRefused(join(swapped), InvalidExportException.class, "revision 2, expected 1");
  }

  @Test
  void anExistingLedgerIsNotReplaced() {
    LedgerStore source = open();
    fill(source);
    byte[] exported = export(source, ROOT);
    LedgerStore target = open();
    target.ledger(ROOT, Doc.class).commit(0, new Doc("mine", Map.of()));
    byte[] before = export(target, ROOT);
    assertThatThrownBy(() -> importInto(target, exported))
        .isInstanceOf(LedgerExistsException.class).hasMessageContaining(ROOT);
    assertThat(export(target, ROOT)).isEqualTo(before);
    // Importing the same export twice: the second is refused.
    LedgerStore twice = open();
    importInto(twice, exported);
    assertThatThrownBy(() -> importInto(twice, exported))
        .isInstanceOf(LedgerExistsException.class);
    assertThat(twice.ledger(ROOT, Doc.class).load().revision()).isEqualTo(COMMITS);
  }

  /** Each export taken while a writer commits imports whole, at the revision it reports. */
  @Test
  void anExportBesideAWriterIsAConsistentPrefix() throws Exception {
    LedgerStore source = open();
    Ledger<Doc> ledger = source.ledger(ROOT, Doc.class);
    ledger.commit(0, new Doc("t", Map.of("n", 1)), EventDraft.of("e", Map.of("n", 1)));
    int commits = 200;
    AtomicReference<Throwable> failure = new AtomicReference<>();
    Thread writer = new Thread(() -> {
      try {
        for (int n = 2; n <= commits; n++) {
          ledger.commit(n - 1, new Doc("t", Map.of("n", n)), EventDraft.of("e", Map.of("n", n)),
              EventDraft.of("f", Map.of("n", n)));
        }
      } catch (Throwable t) {
        failure.set(t);
      }
    }, "export-contract-writer");
    writer.start();
    List<Long> seen = new ArrayList<>();
    do {
      byte[] exported = export(source, ROOT);
      LedgerStore target = open();
      ImportResult result = importInto(target, exported);
      long revision = result.revision();
      assertThat(lines(exported)).hasSize((int) revision + 1);
      assertThat(result.events()).isEqualTo(2 * revision - 1);
      assertThat(target.ledger(ROOT, Doc.class).load().state().counts())
          .containsEntry("n", (int) revision);
      seen.add(revision);
      target.close();
      opened.remove(target);
    } while (writer.isAlive());
    writer.join();
    assertThat(failure.get()).isNull();
    assertThat(seen).isSorted();
  }
}
