package dev.ledger.collections.patchlog;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ledger.collections.CollectionOptions;
import dev.ledger.collections.Schema;
import dev.ledger.core.CommitResult;
import dev.ledger.core.LedgerOptions;
import dev.ledger.core.fs.FileLedgerStore;
import dev.ledger.core.spi.LoggedCommit;
import dev.ledger.core.spi.PatchLog;
import dev.ledger.core.spi.PatchRequest;
import dev.ledger.core.spi.PendingCommit;
import dev.ledger.core.spi.StoredState;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.LongUnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A cold open starts reading the journal from the revision the checkpoint's header names
 * before it reads the checkpoint ({@link PatchLog#checkpointRevisionHint}). The view it opens
 * must be the one the open without the hint builds (the checkpoint read first, then the
 * journal after it), whether the hint is right, older or newer than the checkpoint it then
 * reads (one written meanwhile), or missing.
 */
class EarlyJournalReadTest {
  /**
   * A document.
   *
   * @param id the key
   * @param group indexed
   * @param n changed by the commits after the checkpoint
   */
  public record Doc(String id, String group, long n) {}

  /**
   * A queued item.
   *
   * @param n its number
   */
  public record Item(long n) {}

  private static final Schema SCHEMA = Schema.builder()
      .collection("docs", Doc.class, List.of("id"), List.of("group"))
      .queue("q", Item.class)
      .build();

  @TempDir
  Path dir;

  @Test
  void theViewIsTheSameWithARightAStaleAFutureOrNoHint() {
    // A small checkpoint floor: several checkpoints, and commits after the last one.
    CollectionOptions options = CollectionOptions.defaults().withCheckpoints(0.5, 4096);
    try (FileLedgerStore store = FileLedgerStore.open(dir, LedgerOptions.defaults())) {
      PatchLogCollectionStore collections = PatchLogCollectionStore.on(store, SCHEMA, options);
      for (int i = 0; i < 300; i++) {
        long n = i;
        collections.execute("p", tx -> {
          tx.collection("docs", Doc.class).upsert(List.of(new Doc("d-" + (n % 40),
              "g-" + (n % 7), n)), List.of("group", "n"));
          tx.queue("q", Item.class).enqueue(List.of(new Item(n)));
          if (n % 3 == 0) {
            tx.queue("q", Item.class).dequeue(1);
          }
          return null;
        });
      }
      assertThat(store.patchLog("p").journalBytesSinceCheckpoint()).isPositive();
      assertThat(store.patchLog("p").checkpoint()).isPresent();
    }
    String none = open(hint -> -1);
    assertThat(none).contains("d-39").contains("\"n\":299");
    assertThat(open(hint -> hint)).isEqualTo(none);
    assertThat(open(hint -> hint - 5)).isEqualTo(none);
    assertThat(open(hint -> 1)).isEqualTo(none);
    assertThat(open(hint -> hint + 3)).isEqualTo(none);
  }

  /** The view of partition p opened cold, with the hint changed by {@code hints}, as text. */
  private String open(LongUnaryOperator hints) {
    try (FileLedgerStore store = FileLedgerStore.openReadOnly(dir)) {
      Engine engine = new Engine(store, root -> new Hinted(store.patchLog(root), hints),
          SCHEMA, new ObjectMapper(), CollectionOptions.defaults());
      return engine.read("p", view -> {
        List<String> out = new ArrayList<>();
        out.add(Json.text(((TxContext) view).view.toTree()));
        out.add(view.collection("docs", Doc.class)
            .query(dev.ledger.collections.Query.builder().exact("group", "g-3").build()).items()
            .toString());
        return String.join("\n", out);
      });
    }
  }

  /** A log whose checkpoint hint is the real one changed by {@code hints} (-1: none). */
  private static final class Hinted implements PatchLog {
    private final PatchLog log;
    private final LongUnaryOperator hints;

    Hinted(PatchLog log, LongUnaryOperator hints) {
      this.log = log;
      this.hints = hints;
    }

    @Override
    public OptionalLong checkpointRevisionHint() {
      OptionalLong real = log.checkpointRevisionHint();
      assertThat(real).isPresent();
      long changed = hints.applyAsLong(real.getAsLong());
      return changed < 0 ? OptionalLong.empty() : OptionalLong.of(changed);
    }

    @Override
    public String rootId() {
      return log.rootId();
    }

    @Override
    public Optional<StoredState> checkpoint() {
      return log.checkpoint();
    }

    @Override
    public Stream<LoggedCommit> commitsAfter(long revision) {
      return log.commitsAfter(revision);
    }

    @Override
    public Stream<LoggedCommit> patchesAfter(long revision) {
      return log.patchesAfter(revision);
    }

    @Override
    public List<CommitResult> commitPatches(List<PatchRequest> batch) {
      return log.commitPatches(batch);
    }

    @Override
    public CommitResult commitPatch(PatchRequest request) {
      return log.commitPatch(request);
    }

    @Override
    public PendingCommit appendPatch(PatchRequest request) {
      return log.appendPatch(request);
    }

    @Override
    public boolean checkpoint(long revision, JsonNode state, int stateVersion) {
      return log.checkpoint(revision, state, stateVersion);
    }

    @Override
    public long journalBytesSinceCheckpoint() {
      return log.journalBytesSinceCheckpoint();
    }
  }
}
