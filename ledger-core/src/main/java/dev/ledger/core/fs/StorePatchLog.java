package dev.ledger.core.fs;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ledger.core.CommitResult;
import dev.ledger.core.spi.AbstractLedgerStore;
import dev.ledger.core.spi.LoggedCommit;
import dev.ledger.core.spi.PatchLog;
import dev.ledger.core.spi.PatchRequest;
import dev.ledger.core.spi.PendingCommit;
import dev.ledger.core.spi.RawState;
import dev.ledger.core.spi.StoredState;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Stream;

/**
 * The patch log a {@link FileLedgerStore} hands out: each call runs through the store's
 * guard (refused with {@link dev.ledger.core.StoreClosedException} once the store is closed,
 * and waited for by its close) on the store's backend of the root id, the same
 * {@link FileLedger} its {@link dev.ledger.core.Ledger}s use.
 */
final class StorePatchLog implements PatchLog {
  private final String root;
  private final AbstractLedgerStore<FileLedger> store;
  private final Function<String, FileLedger> backends;

  StorePatchLog(String root, AbstractLedgerStore<FileLedger> store,
      Function<String, FileLedger> backends) {
    this.root = root;
    this.store = store;
    this.backends = backends;
  }

  private FileLedger backend() {
    return backends.apply(root);
  }

  @Override
  public String rootId() {
    return root;
  }

  @Override
  public Optional<StoredState> checkpoint() {
    return store.guarded(() -> backend().checkpoint());
  }

  @Override
  public Optional<RawState> rawCheckpoint() {
    return store.guarded(() -> backend().rawCheckpoint());
  }

  @Override
  public Stream<LoggedCommit> commitsAfter(long revision) {
    return store.guarded(() -> backend().commitsAfter(revision));
  }

  @Override
  public Stream<LoggedCommit> patchesAfter(long revision) {
    return store.guarded(() -> backend().patchesAfter(revision));
  }

  @Override
  public List<CommitResult> commitPatches(List<PatchRequest> batch) {
    return store.guarded(() -> backend().commitPatches(batch));
  }

  @Override
  public CommitResult commitPatch(PatchRequest request) {
    return store.guarded(() -> backend().commitPatch(request));
  }

  /**
   * The append is a guarded store operation; the wait for its force is not (a close of the
   * store in between forces what was written before it closes the journal, so the wait then
   * returns at once).
   */
  @Override
  public PendingCommit appendPatch(PatchRequest request) {
    return store.guarded(() -> backend().appendPatch(request));
  }

  @Override
  public boolean checkpoint(long revision, JsonNode state, int stateVersion) {
    return store.guarded(() -> backend().checkpoint(revision, state, stateVersion));
  }

  @Override
  public boolean takesCheckpointBytes() {
    return true;
  }

  @Override
  public boolean checkpointBytes(long revision, byte[] state, int stateVersion) {
    return store.guarded(() -> backend().checkpointBytes(revision, state, stateVersion));
  }

  @Override
  public long journalBytesSinceCheckpoint() {
    return store.guarded(() -> backend().journalBytesSinceCheckpoint());
  }

  @Override
  public String toString() {
    return "patch log of '" + root + "' in " + store;
  }
}
