package dev.ledger.cli;

import dev.ledger.artifacts.ArtifactVerification;
import dev.ledger.artifacts.BlobDamage;
import dev.ledger.artifacts.SnapshotDamage;
import dev.ledger.artifacts.fs.FileArtifactStore;
import dev.ledger.core.VerifyProgress;
import dev.ledger.core.VerifyReport;
import dev.ledger.core.fs.FileLedgerStore;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.function.Consumer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code ledger verify DIR [--artifacts]}: reads every file and reports damage. */
@Command(name = "verify", mixinStandardHelpOptions = true,
    description = {"Verify the store in DIR: store.json, then every ledger's journal, "
        + "checkpoint and command index (FileLedgerStore.verify); with --artifacts also every "
        + "blob (re-hashed) and snapshot of DIR/artifacts.",
        "Each finding goes to standard output on one line: 'damage' or 'note', its kind, the "
        + "ledger, the file and the byte offset, what is wrong. A summary line follows. "
        + "Progress goes to standard error: a bar on a terminal, a line per ledger otherwise.",
        "Exit 0 when no damage was found (notes, such as a torn tail a crash left, are not "
        + "damage), 1 when some was.",
        "Read-only: creates, locks and changes nothing; works while writers commit."})
final class VerifyCommand implements Callable<Integer>, StoreCommand {
  @Spec
  CommandSpec spec;

  @Parameters(index = "0", paramLabel = "DIR", description = "The store directory.")
  Path dir;

  @Override
  public Path dir() {
    return dir;
  }

  @Option(names = "--artifacts",
      description = "Verify the artifact store (DIR/artifacts) too.")
  boolean artifacts;

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    boolean clean;
    try (FileLedgerStore store = Stores.ledgersReadOnly(dir)) {
      Progress progress = System.console() != null ? new Bar(err) : new Lines(err);
      VerifyReport report = store.verify(progress);
      progress.done();
      for (VerifyReport.Finding finding : report.findings()) {
        out.println(finding);
      }
      out.printf("ledgers: %d verified, %d segments, %d records, %d events, %d bytes: "
          + "%d damage, %d notes%n", report.ledgers(), report.segments(), report.records(),
          report.events(), report.bytes(), report.damage().size(), report.notes().size());
      clean = report.clean();
    }
    if (artifacts) {
      try (FileArtifactStore store = Stores.artifactsReadOnly(dir)) {
        ArtifactVerification verification = store.verify();
        for (BlobDamage damage : verification.blobs().damaged()) {
          out.println("damage BLOB: " + damage.path() + " (whole file): " + damage.detail()
              + (damage.expected() == null ? "" : " (expected " + damage.expected().hex()
                  + ", actual " + damage.actualSha256() + ")"));
        }
        for (SnapshotDamage damage : verification.damagedSnapshots()) {
          out.println("damage SNAPSHOT" + (damage.rootId() == null ? ""
              : " in root '" + damage.rootId() + "'") + ": " + damage.path()
              + " (whole file): " + damage.detail());
        }
        int damaged = verification.blobs().damaged().size()
            + verification.damagedSnapshots().size();
        out.printf("artifacts: %d blobs verified, %d bytes, %d snapshots: %d damage%n",
            verification.blobs().checked(), verification.blobs().bytes(),
            verification.snapshots(), damaged);
        clean &= verification.sound();
      }
    }
    out.flush();
    return clean ? ExitCodes.OK : ExitCodes.DATA;
  }

  /** Where progress goes. */
  private interface Progress extends Consumer<VerifyProgress> {
    /** Called once the ledgers are verified. */
    void done();
  }

  /** One line per ledger verified: for logs and pipes. */
  private static final class Lines implements Progress {
    private final PrintWriter err;
    private String last;

    Lines(PrintWriter err) {
      this.err = err;
    }

    @Override
    public void accept(VerifyProgress progress) {
      if (last != null && !last.equals(progress.rootId())) {
        err.println("verified ledger '" + last + "'");
        err.flush();
      }
      last = progress.rootId();
    }

    @Override
    public void done() {
      if (last != null) {
        err.println("verified ledger '" + last + "'");
        err.flush();
      }
    }
  }

  /** A bar redrawn in place, by ledgers done and the bytes of the current one. */
  private static final class Bar implements Progress {
    private static final int WIDTH = 30;
    private final PrintWriter err;
    private int drawn = -1;

    Bar(PrintWriter err) {
      this.err = err;
    }

    @Override
    public void accept(VerifyProgress progress) {
      double within = progress.bytesTotal() <= 0 ? 1
          : Math.min(1, (double) progress.bytesDone() / progress.bytesTotal());
      double fraction = progress.ledgers() == 0 ? 1
          : (progress.ledger() + within) / progress.ledgers();
      int permille = (int) (fraction * 1000);
      if (permille == drawn) {
        return;
      }
      drawn = permille;
      int filled = (int) (fraction * WIDTH);
      String name = progress.rootId().length() > 24
          ? progress.rootId().substring(0, 23) + "…" : progress.rootId();
      err.print("\r[" + "#".repeat(filled) + ".".repeat(WIDTH - filled) + "] "
          + String.format("%5.1f%%", fraction * 100) + " " + (progress.ledger() + 1) + "/"
          + progress.ledgers() + " " + String.format("%-24s", name));
      err.flush();
    }

    @Override
    public void done() {
      if (drawn >= 0) {
        err.print("\r" + " ".repeat(WIDTH + 45) + "\r");
        err.flush();
      }
    }
  }
}
