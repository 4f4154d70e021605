package dev.ledger.core.fs;

import com.google.common.base.Preconditions;
import dev.ledger.core.CommitListener;
import dev.ledger.core.BackupResult;
import dev.ledger.core.CorruptLedgerException;
import dev.ledger.core.Durability;
import dev.ledger.core.ImportResult;
import dev.ledger.core.InvalidExportException;
import dev.ledger.core.LedgerExistsException;
import dev.ledger.core.LedgerException;
import dev.ledger.core.LedgerIOException;
import dev.ledger.core.Ledger;
import dev.ledger.core.LedgerException;
import dev.ledger.core.LedgerBusyException;
import dev.ledger.core.LedgerHead;
import dev.ledger.core.LedgerIOException;
import dev.ledger.core.LedgerNotFoundException;
import dev.ledger.core.LedgerOptions;
import dev.ledger.core.LedgerStore;
import dev.ledger.core.ReadOnlyStoreException;
import dev.ledger.core.RepairResult;
import dev.ledger.core.RetentionPolicy;
import dev.ledger.core.RetentionResult;
import dev.ledger.core.RootIdCursor;
import dev.ledger.core.RootIdPage;
import dev.ledger.core.StateType;
import dev.ledger.core.StoreClosedException;
import dev.ledger.core.StoreNotFoundException;
import dev.ledger.core.SymbolicLinkException;
import dev.ledger.core.UnrepairableLedgerException;
import dev.ledger.core.UnsupportedFormatException;
import dev.ledger.core.VerifyProgress;
import dev.ledger.core.VerifyReport;
import dev.ledger.core.internal.io.Identifiers;
import dev.ledger.core.internal.io.SafeFiles;
import dev.ledger.core.spi.AbstractLedgerStore;
import dev.ledger.core.spi.PatchLog;
import dev.ledger.core.spi.PatchLogSource;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;
import java.util.function.Consumer;

/**
 * A {@link dev.ledger.core.LedgerStore} in a directory: durable, safe across threads and
 * processes (including {@code kill -9} and power loss under {@link Durability#SYNC}), and
 * readable with {@code cat} and {@code jq}. A copied directory is a complete, valid store.
 *
 * <pre>
 * &lt;base&gt;/
 *   store.json                               marker: format and size limits ({@link StoreMarker})
 *   .lock                                    store lock, only while a writer raises the
 *                                            limits in store.json; created then, never deleted
 *   ledgers/&lt;root dir&gt;/                       root id encoded by {@link Identifiers}
 *     .lock                                  writer lock ({@code FileLocks}); names its last
 *                                            acquirer ("pid=... host=...") while a store
 *                                            writes; never deleted
 *     state.json                             checkpoint ({@link Checkpoint}), absent until
 *                                            the first checkpoint
 *     journal/&lt;20-digit revision&gt;.jsonl      append-only segments ({@link JournalFiles}),
 *                                            one checksummed commit record per line
 *                                            ({@code JournalLine}, {@code CommitRecord})
 *     commands/&lt;2 hex&gt;/&lt;62 hex&gt;.json         command id index ({@link CommandIndex})
 *     retention.json                         where the journal starts after a retention, with
 *                                            the state before it ({@link RetentionMarker});
 *                                            absent until {@link #applyRetention}
 *   ledgers/.trash/                          ledgers being deleted or archived
 *                                            ({@code LedgerTrash}); emptied by the next
 *                                            delete or writable open
 *   ledgers/.import.&lt;pid&gt;.&lt;n&gt;/               an import being built ({@code LedgerImport})
 * </pre>
 * Files are created owner-only (0600) and directories 0700 where POSIX permissions exist.
 * With a fixed clock, the same calls produce byte-identical files (the lock file is empty
 * once every store that wrote has been closed).
 *
 * <p><b>Opening.</b> {@link #open} creates the base directory and {@code store.json} if
 * missing, and raises the limits recorded in {@code store.json} if its options' are larger
 * (see {@link StoreMarker}); {@link #openReadOnly} creates and writes nothing. A
 * {@code store.json} of a newer format is refused with {@link UnsupportedFormatException}.
 * Thread-safe; any number of stores (in this or other processes) may open one directory.
 *
 * <p><b>Size limits travel with the data.</b> A writer's commits are bounded by its own
 * {@link LedgerOptions} limits; every store's reads are bounded by the larger of its own
 * limits and those recorded in {@code store.json}, which are at least those of every writer
 * that opened the directory. So a store written with 32 MiB states reads back in a store
 * opened with the default options, or with {@code openReadOnly}; a writer with smaller
 * limits than recorded reads everything and writes within its own.
 *
 * <p><b>Symbolic links.</b> The base directory may be a symbolic link (to put a store where
 * the space is); nothing below it may be. A link in the store's place of {@code store.json},
 * {@code ledgers}, a ledger's directory, its {@code journal} directory, a segment,
 * {@code state.json}, a lock file or a command index entry is refused with
 * {@link SymbolicLinkException} naming it, and is never followed, read or written through.
 */
public final class FileLedgerStore implements LedgerStore, PatchLogSource {
  private final Path base;
  private final Path ledgers;
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(
      FileLedgerStore.class);

  private final boolean readOnly;
  private final StoreLimits limits;
  private final Ledgers shell;
  /** The ledgers holding open files for writing, at most the options' open writer limit. */
  private final OpenWriters openWriters;

  private FileLedgerStore(Path base, LedgerOptions options, boolean readOnly,
      StoreLimits limits) {
    this.openWriters = new OpenWriters(options.openWriterLimit());
    this.base = base;
    this.ledgers = base.resolve("ledgers");
    this.readOnly = readOnly;
    this.limits = limits;
    this.shell = new Ledgers(options, (readOnly ? "read-only " : "") + "file store at " + base);
  }

  /**
   * Opens (creating if needed) a store in {@code base} with default options.
   *
   * @param base the store's directory; created if missing; may be a symbolic link
   * @return the open store
   * @throws NullPointerException if {@code base} is null
   * @throws LedgerIOException if {@code base} is not a directory ("not a directory"), or it
   *     cannot be created or read
   * @throws UnsupportedFormatException if the store was written by a newer format
   * @throws CorruptLedgerException if {@code store.json} is not a store marker
   * @throws SymbolicLinkException if {@code store.json} or {@code ledgers} is a symbolic link
   */
  public static FileLedgerStore open(Path base) {
    return open(base, LedgerOptions.defaults());
  }

  /**
   * Opens (creating if needed) a store in {@code base}. If {@code options} allow larger
   * states or event payloads than {@code store.json} records, the recorded limits are raised
   * first, durably, so that every reader of the directory reads what this store writes.
   *
   * @param base the store's directory; created if missing; may be a symbolic link
   * @param options the options this store runs with
   * @return the open store
   * @throws NullPointerException if {@code base} or {@code options} is null
   * @throws LedgerIOException if {@code base} is not a directory ("not a directory"), or it
   *     cannot be created or read
   * @throws UnsupportedFormatException if the store was written by a newer format
   * @throws CorruptLedgerException if {@code store.json} is not a store marker
   * @throws SymbolicLinkException if {@code store.json} or {@code ledgers} is a symbolic link
   * @throws dev.ledger.core.LockTimeoutException if raising the limits waited for the store
   *     lock past the options' lock timeout
   */
  public static FileLedgerStore open(Path base, LedgerOptions options) {
    Preconditions.checkNotNull(base, "base");
    Preconditions.checkNotNull(options, "options");
    Path absolute = base.toAbsolutePath();
    StoreMarker.Limits recorded = initialize(absolute, options);
    LedgerTrash.clearLeftovers(absolute.resolve("ledgers"));
    return new FileLedgerStore(absolute, options, false,
        new StoreLimits(absolute.resolve(StoreMarker.FILE), options, recorded));
  }

  /**
   * Opens an existing store for reading only, for replay tools and copied directories: it
   * creates, locks, cuts and writes nothing, even on close, and every commit throws
   * {@link dev.ledger.core.ReadOnlyStoreException}. Reads see a torn tail as the end of the
   * journal, as every reader does, and are bounded by the size limits {@code store.json}
   * records (the defaults for a store that records none).
   *
   * @param base the store's directory; may be a symbolic link
   * @return the read-only store, running with the default options
   * @throws NullPointerException if {@code base} is null
   * @throws StoreNotFoundException if {@code base} does not exist, is not a directory or
   *     holds no {@code store.json}
   * @throws UnsupportedFormatException if the store was written by a newer format
   * @throws CorruptLedgerException if {@code store.json} is not a store marker
   * @throws SymbolicLinkException if {@code store.json} or {@code ledgers} is a symbolic link
   * @throws LedgerIOException if {@code store.json} cannot be read
   */
  public static FileLedgerStore openReadOnly(Path base) {
    Preconditions.checkNotNull(base, "base");
    Path absolute = base.toAbsolutePath();
    Path marker = absolute.resolve(StoreMarker.FILE);
    if (!Files.exists(absolute)) {
      throw new StoreNotFoundException(absolute, "the directory does not exist");
    }
    if (!Files.isDirectory(absolute)) {
      throw new StoreNotFoundException(absolute, "not a directory");
    }
    SafeFiles.refuseLink(absolute.resolve("ledgers"));
    StoreMarker.Limits recorded;
    try {
      recorded = StoreMarker.read(marker);
    } catch (NoSuchFileException e) {
      throw new StoreNotFoundException(absolute, "it holds no " + StoreMarker.FILE
          + " (FileLedgerStore.open creates a store)");
    } catch (IOException e) {
      throw new LedgerIOException("opening store read-only", marker, e);
    }
    LedgerOptions options = LedgerOptions.defaults();
    return new FileLedgerStore(absolute, options, true,
        new StoreLimits(marker, options, recorded));
  }

  /**
   * Whether this store was opened with {@link #openReadOnly}.
   *
   * @return true if every commit is refused
   */
  public boolean readOnly() {
    return readOnly;
  }

  /**
   * The base directory.
   *
   * @return its absolute path, as given (a link is not resolved)
   */
  public Path base() {
    return base;
  }

  @Override
  public <S> Ledger<S> ledger(String rootId, StateType<S> stateType) {
    return shell.ledger(rootId, stateType);
  }

  @Override
  public List<String> rootIds() {
    return shell.rootIds();
  }

  @Override
  public RootIdPage rootIds(RootIdCursor after, int limit) {
    return shell.rootIds(after, limit);
  }

  @Override
  public boolean exists(String rootId) {
    return shell.exists(rootId);
  }

  @Override
  public Optional<LedgerHead> head(String rootId) {
    return shell.head(rootId);
  }

  @Override
  public LedgerOptions options() {
    return shell.options();
  }

  @Override
  public void close() {
    shell.close();
  }

  /**
   * Verifies the whole store: {@code store.json}, then every ledger (see
   * {@link #verify(String, Consumer)}). Same as {@code verify(p -> { })}.
   *
   * @return the report; {@link VerifyReport#clean()} if no damage was found
   * @throws StoreClosedException if the store is closed
   * @throws LedgerIOException if a directory cannot be listed
   */
  public VerifyReport verify() {
    return verify(progress -> { });
  }

  /**
   * Verifies the whole store: {@code store.json}, then every ledger in root id order (see
   * {@link #verify(String, Consumer)}).
   *
   * @param progress called on this thread after each segment, each MiB and each ledger
   * @return the report; {@link VerifyReport#clean()} if no damage was found
   * @throws NullPointerException if {@code progress} is null
   * @throws StoreClosedException if the store is closed
   * @throws LedgerIOException if a directory cannot be listed
   */
  public VerifyReport verify(Consumer<VerifyProgress> progress) {
    Preconditions.checkNotNull(progress, "progress");
    return shell.guarded(() -> new StoreVerifier(base, limits).verify(null, progress));
  }

  /**
   * Verifies {@code store.json} and one ledger: every journal line from the first segment
   * (checksum, root, revision and sequence continuity, segment names, record format), the
   * state folded from the journal against {@code state.json} at its revision and journal
   * position, every command index entry against the commit it points at, and that every
   * command the checkpoint covers has an entry. Damage is reported and the check goes on
   * from the next valid record; a torn tail (what a crash leaves and the next writer cuts)
   * is a note, not damage.
   *
   * <p>Changes nothing on disk and takes no lock: it works on a {@linkplain #openReadOnly
   * read-only} store and while writers in this or other processes commit. A commit racing
   * the verify is not damage: a line that is bad at first sight but whole at a second look
   * was an append in progress (the readers' rule). Costs a read of the whole journal.
   *
   * <p>Runs on the calling thread, which reads the files and makes every check in order;
   * the decoding of journal lines ahead of it (checksums, and parsing each record) is also
   * handed to the {@linkplain java.util.concurrent.ForkJoinPool#commonPool() common pool}
   * where it has a free thread, so a verify may use two processors. A line no pool thread
   * has taken yet is decoded on the calling thread; the outcome never depends on where.
   *
   * @param rootId the ledger
   * @param progress called on this thread after each segment, each MiB and at the end
   * @return the report
   * @throws LedgerNotFoundException if the store holds no such ledger
   * @throws dev.ledger.core.InvalidIdentifierException if {@code rootId} is not valid
   * @throws NullPointerException if an argument is null
   * @throws StoreClosedException if the store is closed
   */
  public VerifyReport verify(String rootId, Consumer<VerifyProgress> progress) {
    Preconditions.checkNotNull(rootId, "rootId");
    Preconditions.checkNotNull(progress, "progress");
    return shell.guarded(() -> new StoreVerifier(base, limits).verify(rootId, progress));
  }

  /**
   * Rebuilds the ledger's {@code state.json} and command index from its journal, under the
   * ledger's writer lock: never automatic, for a ledger that {@link #verify()} found with a
   * missing or damaged checkpoint or command index. Each file is written only if its content
   * differs, by temp file, {@code force}, atomic rename and directory {@code force};
   * entries that name no command of the journal are removed. Afterwards the ledger loads at
   * the journal's last revision and every command replays. Safe while other stores write
   * (they wait for the lock).
   *
   * @param rootId the ledger
   * @return what was rewritten
   * @throws UnrepairableLedgerException if the journal is damaged before its tail, or holds
   *     no commit; nothing was changed
   * @throws LedgerNotFoundException if the store holds no such ledger
   * @throws ReadOnlyStoreException if the store is read-only
   * @throws dev.ledger.core.LockTimeoutException if the ledger's lock is not free in time
   * @throws LedgerIOException if a file cannot be read or written
   * @throws dev.ledger.core.InvalidIdentifierException if {@code rootId} is not valid
   * @throws NullPointerException if {@code rootId} is null
   * @throws StoreClosedException if the store is closed
   */
  public RepairResult repair(String rootId) {
    Preconditions.checkNotNull(rootId, "rootId");
    return shell.guarded(() -> {
      Path dir = ledgers.resolve(Identifiers.toDirectoryName("root id", rootId));
      if (readOnly) {
        throw new ReadOnlyStoreException(shell.toString(), rootId);
      }
      return LedgerRepair.repair(new StoreVerifier(base, limits), rootId, dir, options());
    });
  }

  /**
   * Writes the ledger of {@code rootId} to {@code out} as a self-describing JSON Lines
   * export: a checksummed header line (kind, export format, root id, revision count, record
   * format, export time from the store's clock), then the journal line of every commit record
   * from revision 1, byte for byte as the journal frames it. The format is documented in
   * {@code LedgerExport}; {@link #importLedger} reads it back.
   *
   * <p>A reader's work: takes no lock, blocks no writer, works on a read-only store. The
   * export is the consistent prefix up to the revision committed when the call starts;
   * commits made while it runs are not included. {@code out} is flushed, not closed.
   *
   * @param rootId the ledger
   * @param out where the export is written
   * @return the last revision exported (the header's revision count)
   * @throws LedgerNotFoundException if the store holds no such ledger
   * @throws CorruptLedgerException if the journal is damaged before the exported revision
   * @throws dev.ledger.core.HistoryTruncatedException if a retention removed early history
   *     ({@link #applyRetention}): an export holds every revision from 1, so it is refused
   *     before anything is written
   * @throws LedgerIOException if the journal cannot be read or {@code out} cannot be written
   *     (what was written to {@code out} is then an incomplete export, which an import
   *     refuses)
   * @throws dev.ledger.core.InvalidIdentifierException if {@code rootId} is not valid
   * @throws NullPointerException if an argument is null
   * @throws StoreClosedException if the store is closed
   */
  @Override
  public long export(String rootId, java.io.OutputStream out) {
    Preconditions.checkNotNull(rootId, "rootId");
    Preconditions.checkNotNull(out, "out");
    return shell.guarded(() -> {
      Path dir = ledgers.resolve(Identifiers.toDirectoryName("root id", rootId));
      try {
        return LedgerExport.export(rootId, dir, limits, options().clock().instant(), out);
      } catch (IOException e) {
        throw new LedgerIOException("exporting ledger '" + rootId + "'", dir, e);
      }
    });
  }

  /**
   * Rebuilds in this store the ledger that {@code in} holds as an export written by
   * {@link #export}: the same revisions, commit times, events (ids, sequences, times,
   * payloads), command ids (a retried command replays its original result) and state, under
   * the root id the export names. The journal lines are kept byte for byte; segments are cut
   * at this store's segment size and a checkpoint is written at the last revision.
   *
   * <p>Checked whole before anything is published: the header (kind, format, checksum), every
   * line's checksum, the record count the header names (a truncated input is refused),
   * revision and sequence continuity, event ids. The ledger is built in a temp directory
   * beside the others and published by one atomic directory rename, the commit point (see
   * {@code LedgerImport}); a refused import leaves the store's ledgers as they were. Reads
   * {@code in} to its end and does not close it.
   *
   * @param in the export
   * @return what was imported
   * @throws LedgerExistsException if the store already holds a ledger, or a directory, for
   *     the export's root id
   * @throws InvalidExportException if the input is not a complete, valid export this library
   *     reads (the message names the line)
   * @throws ReadOnlyStoreException if the store is read-only
   * @throws LedgerIOException if {@code in} cannot be read or a file cannot be written
   * @throws NullPointerException if {@code in} is null
   * @throws StoreClosedException if the store is closed
   */
  @Override
  public ImportResult importLedger(java.io.InputStream in) {
    Preconditions.checkNotNull(in, "in");
    return shell.guarded(() -> {
      if (readOnly) {
        throw new ImportRefused(shell.toString());
      }
      return LedgerImport.importLedger(in, ledgers, limits, options().segmentBytes(),
          options().durability() == Durability.SYNC);
    });
  }

  /**
   * Applies a retention policy to one ledger: removes the journal segments wholly before the
   * first revision the policy keeps (see {@link RetentionPolicy} for the rules; the latest
   * commit and the state are always kept). Same as {@code applyRetention(rootId, policy,
   * archive)} without an archive: removed segments are deleted.
   *
   * @param rootId the ledger
   * @param policy what to keep
   * @return what was removed, and where the journal now starts
   * @throws LedgerNotFoundException if the store holds no such ledger
   * @throws ReadOnlyStoreException if the store is read-only
   * @throws dev.ledger.core.LockTimeoutException if the ledger's lock is not free in time
   * @throws CorruptLedgerException if the history to be removed does not fold into a state
   *     (nothing was removed then)
   * @throws LedgerIOException if a file cannot be read, written or removed
   * @throws dev.ledger.core.InvalidIdentifierException if {@code rootId} is not valid
   * @throws NullPointerException if {@code rootId} or {@code policy} is null
   * @throws StoreClosedException if the store is closed
   */
  public RetentionResult applyRetention(String rootId, RetentionPolicy policy) {
    Preconditions.checkNotNull(rootId, "rootId");
    Preconditions.checkNotNull(policy, "policy");
    return shell.guarded(() -> shell.retainIn(rootId).applyRetention(policy, null));
  }

  /**
   * Applies a retention policy to one ledger, under its writer lock (commits of this and
   * other processes wait for it): removes the journal segments wholly before the first
   * revision the policy keeps, or moves them to {@code archive}.
   *
   * <p><b>Steps, in crash-safe order</b> (see {@code LedgerRetention}): if {@code state.json}
   * points into a segment that goes, a checkpoint is written at the journal's end first; then
   * {@code retention.json} records durably where the journal now starts and the state just
   * before it (the commit point); then the old segments are deleted (or moved) in ascending
   * order and the directory is forced. A crash after the marker leaves only segments nothing
   * refers to, which the next call removes (and counts).
   *
   * <p><b>After it.</b> A read from {@link dev.ledger.core.Cursor#START} starts at the first
   * retained event ({@link dev.ledger.core.Ledger#firstRetainedSequence()}); a cursor into the
   * removed history throws {@link dev.ledger.core.HistoryTruncatedException}, and so does a
   * follower holding one. A command whose commit was removed still replays (its index entry
   * stays): with its revision, no events and a cursor at the first retained event (see
   * {@link dev.ledger.core.Ledger#command}). {@link #verify} and {@link #repair} start at the
   * marker; {@link #export} refuses a truncated ledger. Idempotent: a second call with the
   * same policy and no new commits removes nothing.
   *
   * @param rootId the ledger
   * @param policy what to keep
   * @param archive a directory to move removed segments into, as
   *     {@code <archive>/<ledger directory>/journal/<segment>} (created if needed; a copy an
   *     interrupted run left is replaced); {@link #applyRetention(String, RetentionPolicy)}
   *     deletes them instead
   * @return what was removed, and where the journal now starts
   * @throws LedgerNotFoundException if the store holds no such ledger
   * @throws ReadOnlyStoreException if the store is read-only
   * @throws dev.ledger.core.LockTimeoutException if the ledger's lock is not free in time
   * @throws CorruptLedgerException if the history to be removed does not fold into a state
   *     (nothing was removed then)
   * @throws LedgerIOException if a file cannot be read, written, removed or moved
   * @throws dev.ledger.core.InvalidIdentifierException if {@code rootId} is not valid
   * @throws NullPointerException if an argument is null
   * @throws StoreClosedException if the store is closed
   */
  public RetentionResult applyRetention(String rootId, RetentionPolicy policy, Path archive) {
    Preconditions.checkNotNull(rootId, "rootId");
    Preconditions.checkNotNull(policy, "policy");
    Preconditions.checkNotNull(archive, "archive");
    Path target = archive.toAbsolutePath();
    return shell.guarded(() -> shell.retainIn(rootId).applyRetention(policy, target));
  }

  /**
   * Registers a listener told of every commit this store makes from now on: once per
   * commit, in commit order for each ledger, on the committing thread under the ledger's
   * lock, after the commit is durable (see {@link CommitListener};
   * {@link TraceSink} is one). Commits of other stores or processes on the
   * same directory are not seen. What it throws never fails a commit.
   *
   * @param listener the listener
   * @throws NullPointerException if {@code listener} is null
   */
  public void addCommitListener(CommitListener listener) {
    shell.addCommitListener(listener);
  }

  /**
   * Removes a listener registered with {@link #addCommitListener}.
   *
   * @param listener the listener
   * @return whether it was registered
   * @throws NullPointerException if {@code listener} is null
   */
  public boolean removeCommitListener(CommitListener listener) {
    return shell.removeCommitListener(listener);
  }

  // ---------------------------------------------------------------- delete, archive, backup

  /**
   * {@inheritDoc}
   *
   * <p>On files: under the ledger's writer lock, the ledger's directory is renamed into
   * {@code ledgers/.trash/} (the commit point), {@code ledgers/} and the trash are forced,
   * and then, with the lock released, the renamed tree is removed (see {@code LedgerTrash}).
   * A crash at any step leaves the ledger whole or gone; what a crash leaves in the trash is
   * removed by the next delete or the next {@link #open} of the store. Other stores (in this
   * or other processes) that wrote the ledger notice at their next commit that its lock file
   * is another file, drop what they cached, and see a ledger never committed to; their
   * reads see it gone at once.
   */
  @Override
  public boolean delete(String rootId) {
    return shell.delete(rootId);
  }

  /**
   * Moves the ledger of {@code rootId} out of this store into a new store directory at
   * {@code target} holding only it: {@code store.json} and {@code ledgers/<root>/} with every
   * record, the checkpoint and the command index, no lock file and no preallocated zeros. It
   * opens with {@link #openReadOnly} (or {@link #open}) and passes {@link #verify()}; the
   * ledger is then deleted from this store as by {@link #delete}.
   *
   * <p>Under the ledger's writer lock from start to end (waiting up to the lock timeout; a
   * writer holding it longer makes the archive refuse, changing nothing). The archive is
   * always a copy, on this file system or another: it is built in a hidden directory beside
   * the target, forced, verified as a store of its own, and published by one rename (the
   * archive's commit point); only then is the ledger removed from this store. A crash before
   * the publishing rename leaves the ledger here, whole, and a hidden
   * {@code .<target name>.<pid>.<n>.archive} directory in the target's parent (remove it by
   * hand); a crash after it and before the delete's commit point leaves the ledger in both
   * places, the archive complete. See {@code LedgerArchive}.
   *
   * @param rootId the ledger to archive
   * @param target the new store directory; must not exist (its parent is created if missing)
   * @return the revision archived
   * @throws LedgerNotFoundException if the store holds no such ledger
   * @throws LedgerBusyException if another writer held the ledger's lock past the deadline
   * @throws LedgerIOException if {@code target} exists, or a file cannot be read or written
   *     (the ledger is then here, whole, unless the message says it was removed)
   * @throws CorruptLedgerException if the ledger's journal is damaged before its tail
   * @throws ReadOnlyStoreException if the store is read-only
   * @throws dev.ledger.core.InvalidIdentifierException if {@code rootId} is not valid
   * @throws NullPointerException if an argument is null
   * @throws StoreClosedException if the store is closed
   */
  public long archive(String rootId, Path target) {
    Preconditions.checkNotNull(rootId, "rootId");
    Preconditions.checkNotNull(target, "target");
    Identifiers.check("root id", rootId);
    Path to = target.toAbsolutePath();
    return shell.guarded(() -> {
      if (readOnly) {
        throw new ReadOnlyStoreException(shell.toString(), rootId);
      }
      if (Files.exists(to, LinkOption.NOFOLLOW_LINKS)) {
        throw new LedgerIOException(to, "Cannot archive ledger '" + rootId + "' to " + to
            + ": it exists; an archive is a new store directory", null);
      }
      Path[] trashed = new Path[1];
      long revision = shell.ledgerFor(rootId).removeUnderLock("archive", (dir, existed) -> {
        if (!existed) {
          throw new LedgerNotFoundException(rootId);
        }
        try {
          long archived = LedgerArchive.build(rootId, dir, base.resolve(StoreMarker.FILE), to,
              limits, options());
          trashed[0] = LedgerTrash.moveToTrash(ledgers, dir, sync());
          return archived;
        } catch (IOException e) {
          throw new LedgerIOException("archiving ledger '" + rootId + "' to " + to, dir, e);
        }
      });
      emptyTrash(trashed[0]);
      return revision;
    });
  }

  /**
   * Copies this store's ledgers into {@code target} while writers, in this and other
   * processes, go on committing: each ledger in the copy is consistent at one revision (the
   * last complete record its journal held when the copy of that ledger read it), with the
   * checkpoint and command index entries copied before that point, so the copy opens with
   * {@link #openReadOnly} and passes {@link #verify()}. Takes no lock and blocks no writer; it
   * works on a read-only store.
   *
   * <p>{@code target} is a new directory, or one that holds only an artifact store's backup
   * ({@code FileArtifactStore.backup}, which fills {@code <target>/artifacts} the same way):
   * back up the ledgers and then the artifacts into one target to copy a base directory that
   * holds both. The ledgers are copied into a hidden directory in {@code target}, renamed to
   * {@code ledgers/}, and {@code store.json} is written last: a backup killed at any step has
   * no {@code store.json}, so it never opens as a store. With {@code SYNC} durability
   * everything is forced before {@code store.json} is. See {@code StoreBackup}.
   *
   * <p>Like every reader, the copy may hold a commit a moment before its writer's
   * {@code force} returned: a power cut of the source's machine right then could take that
   * commit back from the source while the backup keeps it.
   *
   * @param target the backup's directory
   * @return the revision of each ledger copied
   * @throws LedgerIOException if {@code target} holds {@code store.json} or {@code ledgers}
   *     already, or a file cannot be read or written (nothing is left that looks complete)
   * @throws CorruptLedgerException if a ledger's journal is damaged before its tail
   * @throws NullPointerException if {@code target} is null
   * @throws StoreClosedException if the store is closed
   */
  public BackupResult backup(Path target) {
    Preconditions.checkNotNull(target, "target");
    Path to = target.toAbsolutePath();
    return shell.guarded(() -> {
      try {
        return StoreBackup.backup(base, listRootIds(), to, limits, sync());
      } catch (IOException e) {
        throw new LedgerIOException("backing up the store to " + to, to, e);
      }
    });
  }

  private boolean sync() {
    return options().durability() == Durability.SYNC;
  }

  /** Deletes {@code rootId} through {@code ledger}, then empties the trash. */
  private boolean deleteThrough(String rootId, FileLedger ledger) {
    if (readOnly) {
      throw new ReadOnlyStoreException(shell.toString(), rootId);
    }
    Path[] trashed = new Path[1];
    boolean existed = ledger.removeUnderLock("delete", (dir, exists) -> {
      if (!Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
        return false;
      }
      try {
        trashed[0] = LedgerTrash.moveToTrash(ledgers, dir, sync());
      } catch (IOException e) {
        throw new LedgerIOException("deleting ledger '" + rootId + "'"
            + (Files.exists(dir, LinkOption.NOFOLLOW_LINKS) ? " (it is whole)"
                : " (it was moved to the trash; a power cut may bring it back)"), dir, e);
      }
      return exists;
    });
    emptyTrash(trashed[0]);
    return existed;
  }

  /**
   * Removes what a delete moved to the trash, and what earlier ones left there. The ledger
   * is gone already: a failure is logged, and the next open or delete retries.
   */
  private void emptyTrash(Path trashed) {
    if (trashed == null) {
      return;
    }
    try {
      LedgerTrash.removeTree(trashed);
    } catch (IOException e) {
      LOG.warn("Could not remove {}; the next open or delete of the store retries", trashed,
          e);
    }
    LedgerTrash.clearLeftovers(ledgers);
  }

  @Override
  public String toString() {
    return shell.toString();
  }

  /** An import refused by a read-only store. */
  private static final class ImportRefused extends ReadOnlyStoreException {
    private static final long serialVersionUID = 1L;

    ImportRefused(String store) {
      super("Refused an import: the " + store + " was opened read-only");
    }
  }

  /** Creates what is missing, checks the marker, raises its limits if needed. */
  private static StoreMarker.Limits initialize(Path base, LedgerOptions options) {
    boolean sync = options.durability() == Durability.SYNC;
    Path marker = base.resolve(StoreMarker.FILE);
    StoreMarker.Limits wanted = StoreMarker.FORMAT_1_LIMITS.max(StoreMarker.Limits.of(options));
    try {
      if (Files.exists(base) && !Files.isDirectory(base)) {
        throw new NotDirectoryException(base.toString());
      }
      SafeFiles.createDirectories(base, sync);
      SafeFiles.createDirectoriesBelow(base, base.resolve("ledgers"), sync);
      if (!Files.exists(marker, LinkOption.NOFOLLOW_LINKS)) {
        // First creator wins; a racing opener's marker is read below like any other.
        SafeFiles.createOnce(marker, StoreMarker.encode(wanted), sync);
      }
      StoreMarker.Limits recorded = StoreMarker.read(marker);
      if (!recorded.covers(wanted)) {
        recorded = StoreMarker.raise(base, wanted, options.lockTimeout());
      }
      return recorded;
    } catch (NotDirectoryException e) {
      String file = e.getFile();
      throw new LedgerIOException(base, "Cannot open a store at " + base + ": "
          + (base.toString().equals(file) ? "" : file + " is ") + "not a directory", e);
    } catch (IOException e) {
      throw new LedgerIOException("opening store", base, e);
    }
  }

  private List<String> listRootIds() {
    List<String> ids = new ArrayList<>();
    SafeFiles.refuseLink(ledgers);
    if (readOnly && !Files.isDirectory(ledgers)) {
      return ids;
    }
    try (DirectoryStream<Path> entries = Files.newDirectoryStream(ledgers)) {
      for (Path entry : entries) {
        String id = Identifiers.fromDirectoryName("root id",
            entry.getFileName().toString());
        if (id == null) {
          continue; // not a name this store writes (a temp or stray file)
        }
        // A ledger's directory that is a link is refused, not listed or skipped.
        SafeFiles.refuseLink(entry);
        if (Files.isDirectory(entry)
            && (Files.exists(entry.resolve("journal").resolve(JournalFiles.name(1)))
                || Files.exists(entry.resolve("state.json"))
                || Files.exists(entry.resolve(RetentionMarker.FILE)))) {
          ids.add(id);
        }
      }
    } catch (IOException e) {
      throw new LedgerIOException("listing ledgers", ledgers, e);
    }
    Collections.sort(ids);
    return ids;
  }

  /**
   * Up to {@code max} committed-to root ids after {@code after}, sorted: one listing of the
   * directory keeps the {@code max} smallest names after {@code after} (names only, no
   * {@code stat}); then those are checked in order. A directory without a commit (a crash
   * between creating it and the first append) is passed over; if passing over some leaves
   * the page short while the listing had more names, the listing is repeated after the last
   * name checked.
   */
  private List<String> listRootIdsAfter(String after, int max) {
    List<String> ids = new ArrayList<>();
    SafeFiles.refuseLink(ledgers);
    if (readOnly && !Files.isDirectory(ledgers)) {
      return ids;
    }
    String from = after;
    while (true) {
      int wanted = max - ids.size();
      TreeSet<String> smallest = new TreeSet<>();
      boolean truncated = false;
      try (DirectoryStream<Path> entries = Files.newDirectoryStream(ledgers)) {
        for (Path entry : entries) {
          String id = Identifiers.fromDirectoryName("root id",
              entry.getFileName().toString());
          if (id == null || id.compareTo(from) <= 0) {
            continue;
          }
          smallest.add(id);
          if (smallest.size() > wanted) {
            smallest.pollLast();
            truncated = true;
          }
        }
      } catch (IOException e) {
        throw new LedgerIOException("listing ledgers", ledgers, e);
      }
      for (String id : smallest) {
        Path entry = ledgers.resolve(Identifiers.toDirectoryName("root id", id));
        SafeFiles.refuseLink(entry);
        if (Files.isDirectory(entry)
            && (Files.exists(entry.resolve("journal").resolve(JournalFiles.name(1)))
                || Files.exists(entry.resolve("state.json"))
                || Files.exists(entry.resolve(RetentionMarker.FILE)))) {
          ids.add(id);
        }
      }
      if (ids.size() >= max || !truncated) {
        return ids;
      }
      from = smallest.last();
    }
  }

  /**
   * {@inheritDoc}
   *
   * <p>The patch log shares the root's ledger with {@link #ledger}: one writer lock, one
   * journal, one command index, one read cache, one commit signal (followers in this process
   * wake on patch commits). Each call is refused once the store is closed; on a read-only
   * store, reads work and commits and checkpoints throw
   * {@link dev.ledger.core.ReadOnlyStoreException}.
   *
   * <p><b>On disk</b>, a patch commit is an ordinary journal record carrying the caller's
   * merge patch, except the ledger's first commit, which records the patch applied to an
   * empty object as its whole state (a patch needs a state before it). A batch is checked
   * whole under one lock, then written as consecutive records, each forced in turn (a crash
   * keeps a prefix of the batch; see {@code FileLedger} for why not one force for the
   * batch). The writer keeps no
   * state for a patch commit: a later {@link dev.ledger.core.Ledger} commit on the same root
   * records its whole state once, then diffs again.
   *
   * <p><b>Checkpoints.</b> The caller writes {@code state.json} through
   * {@link PatchLog#checkpoint(long, com.fasterxml.jackson.databind.JsonNode, int)}, sized
   * to its data; the store never folds a patch-written state to write one. For a ledger
   * written through its patch log, {@link LedgerOptions#checkpointInterval()} bounds only the
   * command ids not yet in the command index: every that many commits, and on close, their
   * entries are written, but no {@code state.json}. A {@code state.json} larger than readers
   * accept (twice {@link LedgerOptions#maxStateBytes()} plus 64 KiB) is refused with
   * {@link dev.ledger.core.LimitExceededException}: open the store with limits to match the
   * data.
   *
   * @param rootId a valid root id
   * @return the patch log of {@code rootId}
   * @throws dev.ledger.core.InvalidIdentifierException if {@code rootId} is not a valid id
   * @throws StoreClosedException if the store is closed
   */
  @Override
  public PatchLog patchLog(String rootId) {
    Identifiers.check("root id", rootId);
    return shell.guarded(() -> {
      shell.backendOf(rootId);
      return new StorePatchLog(rootId, shell, shell::backendOf);
    });
  }

  /** The shared store shell over this directory's ledgers. */
  private final class Ledgers extends AbstractLedgerStore<FileLedger> {
    Ledgers(LedgerOptions options, String name) {
      super(options, name, openWriters::size);
    }

    @Override
    protected FileLedger newBackend(String rootId) {
      FileLedger ledger = new FileLedger(rootId,
          ledgers.resolve(Identifiers.toDirectoryName("root id", rootId)), options(), limits,
          readOnly ? "file store at " + base : null, openWriters);
      ledger.listen(commitListeners());
      ledger.meter(writeMeter());
      return ledger;
    }

    /** The backend of {@code rootId}, created if none was handed out yet. */
    FileLedger backendOf(String rootId) {
      return backend(rootId);
    }

    @Override
    public List<String> rootIds() {
      return guarded(FileLedgerStore.this::listRootIds);
    }

    /** The backend of {@code rootId}, for a retention. */
    FileLedger retainIn(String rootId) {
      return backend(rootId);
    }

    @Override
    protected List<String> rootIdsAfter(String after, int max) {
      return listRootIdsAfter(after, max);
    }

    @Override
    public long export(String rootId, java.io.OutputStream out) {
      return FileLedgerStore.this.export(rootId, out);
    }

    @Override
    public ImportResult importLedger(java.io.InputStream in) {
      return FileLedgerStore.this.importLedger(in);
    }

    @Override
    protected boolean deleteLedger(String rootId, FileLedger handedOut) {
      return deleteThrough(rootId, handedOut != null ? handedOut : newBackend(rootId));
    }

    /** The ledger's backend, registered: an archive forgets its caches like a delete. */
    FileLedger ledgerFor(String rootId) {
      return backend(rootId);
    }

    @Override
    protected void closeBackends(Collection<FileLedger> backends) {
      openWriters.clear();
      LedgerException first = null;
      for (FileLedger ledger : backends) {
        try {
          ledger.close();
        } catch (LedgerException e) {
          if (first == null) {
            first = e;
          } else {
            first.addSuppressed(e);
          }
        }
      }
      if (first != null) {
        throw first;
      }
    }
  }
}
