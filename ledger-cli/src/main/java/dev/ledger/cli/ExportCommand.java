package dev.ledger.cli;

import dev.ledger.core.fs.FileLedgerStore;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code ledger export DIR ROOT [-o FILE]}: a ledger as a checksummed JSON Lines export. */
@Command(name = "export", mixinStandardHelpOptions = true,
    description = {"Write ledger ROOT as an export (checksummed JSON Lines: a header, then "
        + "every commit from revision 1, as LedgerStore.export writes it) to standard output "
        + "or FILE. 'ledger import' reads it back, into this store or another.",
        "The export is the ledger up to the revision committed when it starts; later commits "
        + "are left out. With -o, FILE appears only once the export is complete (written "
        + "aside, forced, renamed); an existing FILE is replaced.",
        "Read-only on the store: creates, locks and changes nothing in DIR."})
final class ExportCommand implements Callable<Integer>, StoreCommand {
  @Spec
  CommandSpec spec;

  @Parameters(index = "0", paramLabel = "DIR", description = "The store directory.")
  Path dir;

  @Override
  public Path dir() {
    return dir;
  }

  @Parameters(index = "1", paramLabel = "ROOT", description = "The ledger's root id.")
  String root;

  @Option(names = {"-o", "--output"}, paramLabel = "FILE",
      description = "Write to FILE instead of standard output.")
  Path output;

  @Override
  public Integer call() throws IOException {
    long revisions;
    try (FileLedgerStore store = Stores.ledgersReadOnly(dir)) {
      if (output == null) {
        OutputStream out = new BufferedOutputStream(System.out, 1 << 16);
        revisions = store.export(root, out);
        out.flush();
      } else {
        revisions = toFile(store);
      }
    }
    spec.commandLine().getErr().println("exported ledger '" + root + "': " + revisions
        + " revisions" + (output == null ? "" : " to " + output));
    spec.commandLine().getErr().flush();
    return ExitCodes.OK;
  }

  private long toFile(FileLedgerStore store) throws IOException {
    Path target = output.toAbsolutePath();
    Path temp = target.resolveSibling("." + target.getFileName() + ".tmp-"
        + ProcessHandle.current().pid());
    boolean done = false;
    try {
      long revisions;
      try (FileChannel channel = FileChannel.open(temp, StandardOpenOption.CREATE_NEW,
          StandardOpenOption.WRITE);
          OutputStream out = new BufferedOutputStream(java.nio.channels.Channels
              .newOutputStream(channel), 1 << 16)) {
        revisions = store.export(root, out);
        out.flush();
        channel.force(true);
      }
      Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE,
          StandardCopyOption.REPLACE_EXISTING);
      done = true;
      return revisions;
    } finally {
      if (!done) {
        Files.deleteIfExists(temp);
      }
    }
  }
}
