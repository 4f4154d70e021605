package dev.ledger.collections.patchlog;

import dev.ledger.collections.TransactionResult;
import dev.ledger.core.fs.FileLedgerStore;
import dev.ledger.testing.base.ChildJvm;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;

/**
 * Child main for {@link CollectionCrashTest}: one writer running {@link TxFixture} steps on
 * the shared partition, one transaction each, in an endless loop until it is killed. It
 * resumes after the last step the partition holds for it (so a step that committed just
 * before the previous kill, unacknowledged, is not run twice). Each step carries a command
 * id. After each committed step it appends {@code ACK <step> <items taken, comma-separated>}
 * to its acknowledgement file (a write the kernel keeps when the process is killed) and prints
 * the same line.
 *
 * <p>Arguments: store directory, writer name, acknowledgement file.
 */
public final class CollectionWriter {
  private CollectionWriter() {}

  public static void main(String[] args) throws IOException {
    ChildJvm.exitWhenParentGoes();
    String writer = args[1];
    try (FileLedgerStore store = FileLedgerStore.open(Path.of(args[0]),
            TxFixture.ledgerOptions());
        FileChannel acks = FileChannel.open(Path.of(args[2]), StandardOpenOption.CREATE,
            StandardOpenOption.WRITE, StandardOpenOption.APPEND)) {
      PatchLogCollectionStore db = PatchLogCollectionStore.on(store, TxFixture.SCHEMA,
          TxFixture.collectionOptions());
      long t = TxFixture.lastStep(db, writer);
      while (true) {
        long step = ++t;
        TransactionResult<List<String>> result = db.execute(TxFixture.PARTITION,
            TxFixture.commandId(writer, step), tx -> TxFixture.step(tx, writer, step));
        if (result.replayed()) {
          throw new IllegalStateException("step " + step + " of " + writer
              + " was already committed: " + result);
        }
        String line = "ACK " + step + " " + String.join(",", result.value()) + "\n";
        acks.write(ByteBuffer.wrap(line.getBytes(StandardCharsets.US_ASCII)));
        System.out.print(line);
        System.out.flush();
      }
    } catch (RuntimeException | Error e) {
      e.printStackTrace();
      System.exit(1);
    }
  }
}
