package dev.ledger.cli;

import dev.ledger.artifacts.ContentId;
import dev.ledger.artifacts.CorruptBlobException;
import dev.ledger.artifacts.fs.FileArtifactStore;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code ledger blobs ...}: the content-addressed blobs of a store. */
@Command(name = "blobs", mixinStandardHelpOptions = true,
    description = "The content-addressed blobs of DIR/artifacts.",
    subcommands = BlobsCommand.Cat.class)
final class BlobsCommand implements Callable<Integer> {
  @Spec
  CommandSpec spec;

  @Override
  public Integer call() {
    spec.commandLine().usage(spec.commandLine().getErr());
    return ExitCodes.USAGE;
  }

  /** {@code ledger blobs cat DIR ID}: a blob's bytes, verified while read. */
  @Command(name = "cat", mixinStandardHelpOptions = true,
      description = {"Write the bytes of blob ID to standard output, hashing them on the way.",
          "If they do not match ID, the command fails with exit code 1 after the last byte: "
          + "discard what it wrote.",
          "Read-only: creates, locks and changes nothing."})
  static final class Cat implements Callable<Integer>, StoreCommand {
    @Spec
    CommandSpec spec;

    @Parameters(index = "0", paramLabel = "DIR", description = "The store directory.")
    Path dir;

    @Override
    public Path dir() {
      return dir;
    }

    @Parameters(index = "1", paramLabel = "ID",
        description = "The blob's content id: sha256:<64 hex digits>, or the 64 digits.")
    String id;

    @Override
    public Integer call() throws IOException {
      ContentId content;
      try {
        content = ContentId.parse(ContentId.isHex64(id) ? "sha256:" + id : id);
      } catch (IllegalArgumentException e) {
        throw new Failures.UsageException("'" + id + "' is not a content id "
            + "(sha256:<64 lower-case hex digits>)");
      }
      try (FileArtifactStore store = Stores.artifactsReadOnly(dir);
          InputStream in = store.blobs().open(content)) {
        OutputStream out = System.out;
        byte[] buffer = new byte[1 << 16];
        try {
          int n;
          while ((n = in.read(buffer)) >= 0) {
            out.write(buffer, 0, n);
          }
        } catch (CorruptBlobException e) {
          out.flush();
          throw new Failures.DataException(Failures.oneLine(e.getMessage())
              + ": the bytes written do not match the id; discard them");
        }
        out.flush();
      }
      return ExitCodes.OK;
    }
  }
}
