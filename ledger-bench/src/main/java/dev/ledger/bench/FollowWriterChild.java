package dev.ledger.bench;

import dev.ledger.core.CommitResult;
import dev.ledger.core.Ledger;
import dev.ledger.core.fs.FileLedgerStore;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * Child JVM of the cross-process follow latency: opens the store (default, durable options),
 * prints {@code READY}, waits for {@code GO} on standard input, then commits {@code count}
 * times on the ledger (one event each), printing {@code COMMITTED <event sequence>
 * <nanoTime when it returned> <nanoTime before it was called>} after each and pausing
 * {@code pauseMicros} between commits; prints {@code DONE}.
 */
public final class FollowWriterChild {
  private FollowWriterChild() {}

  /** Arguments: store base, root id, count, pauseMicros. */
  public static void main(String[] args) throws Exception {
    Path base = Path.of(args[0]);
    String root = args[1];
    int count = Integer.parseInt(args[2]);
    long pauseMicros = Long.parseLong(args[3]);
    try (FileLedgerStore store = FileLedgerStore.open(base)) {
      Ledger<Workload.BenchState> ledger = store.ledger(root, Workload.BenchState.class);
      long revision = ledger.load().revision();
      System.out.println("READY");
      System.out.flush();
      BufferedReader in = new BufferedReader(new InputStreamReader(System.in,
          StandardCharsets.UTF_8));
      if (!"GO".equals(in.readLine())) {
        throw new IllegalStateException("expected GO");
      }
      for (int i = 0; i < count; i++) {
        long called = System.nanoTime();
        CommitResult r = ledger.commit(revision, Workload.state(revision),
            Workload.event(revision));
        long returned = System.nanoTime();
        revision = r.revision();
        System.out.println("COMMITTED " + r.events().get(0).sequence() + " " + returned + " "
            + called);
        if (pauseMicros > 0) {
          TimeUnit.MICROSECONDS.sleep(pauseMicros);
        }
      }
    }
    System.out.println("DONE");
    System.out.flush();
  }
}
