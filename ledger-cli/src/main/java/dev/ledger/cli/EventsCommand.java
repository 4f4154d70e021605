package dev.ledger.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ledger.core.Cursor;
import dev.ledger.core.Event;
import dev.ledger.core.EventFollower;
import dev.ledger.core.EventPage;
import dev.ledger.core.Ledger;
import dev.ledger.core.LedgerNotFoundException;
import dev.ledger.core.fs.FileLedgerStore;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code ledger events DIR ROOT [--after CURSOR] [--limit N] [--type T] [--follow]}. */
@Command(name = "events", mixinStandardHelpOptions = true,
    description = {"Print the events of ledger ROOT as JSON Lines on standard output, one "
        + "object per event: sequence, revision, type, occurredAt, payload, commandId and "
        + "operationId when set, id.",
        "At the end, standard error gets one line 'cursor: TOKEN': pass TOKEN to --after to "
        + "go on from there.",
        "With --follow, waits for new commits (of any process) after the last event, until "
        + "Ctrl-C or SIGTERM, then prints the cursor and exits with 0.",
        "Read-only: creates, locks and changes nothing."})
final class EventsCommand implements Callable<Integer>, StoreCommand {
  private static final int PAGE = 1000;
  private static final Duration POLL = Duration.ofMillis(200);

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

  @Option(names = "--after", paramLabel = "CURSOR",
      description = "Start after this cursor (a token printed by an earlier call); "
          + "default: the first event.")
  String after;

  @Option(names = "--limit", paramLabel = "N",
      description = "Print at most N events (counted after --type), then stop.")
  Long limit;

  @Option(names = "--type", paramLabel = "T",
      description = "Print only events of type T; repeat for several types.")
  Set<String> types;

  @Option(names = {"-f", "--follow"},
      description = "After the last event, wait for new ones until Ctrl-C or SIGTERM.")
  boolean follow;

  @Override
  public Integer call() throws InterruptedException {
    if (limit != null && limit < 1) {
      throw new Failures.UsageException("--limit must be at least 1: " + limit);
    }
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    try (FileLedgerStore store = Stores.ledgersReadOnly(dir)) {
      if (!store.exists(root)) {
        throw new LedgerNotFoundException(root);
      }
      Ledger<JsonNode> ledger = store.ledger(root, JsonNode.class);
      Cursor cursor = after == null ? Cursor.START : Cursor.of(after);
      long left = limit == null ? Long.MAX_VALUE : limit;
      if (follow) {
        return follow(ledger, cursor, left, out, err);
      }
      EventPage page;
      do {
        page = ledger.events(cursor, (int) Math.min(PAGE, left));
        for (Event event : page.events()) {
          if (selected(event)) {
            out.println(Json.line(Json.event(event)));
            left--;
          }
        }
        cursor = page.nextCursor();
        out.flush();
      } while (page.hasMore() && left > 0);
      err.println("cursor: " + cursor.token());
      err.flush();
    }
    return ExitCodes.OK;
  }

  private boolean selected(Event event) {
    return types == null || types.contains(event.type());
  }

  /**
   * Follows until {@code left} events are printed or a signal asks the JVM to stop. On
   * SIGINT or SIGTERM the shutdown hook tells this thread to stop, waits for it to print the
   * cursor, and ends the JVM with 0: the signal is the normal end of a follow.
   */
  private int follow(Ledger<JsonNode> ledger, Cursor start, long left, PrintWriter out,
      PrintWriter err) throws InterruptedException {
    AtomicBoolean stop = new AtomicBoolean();
    CountDownLatch printed = new CountDownLatch(1);
    Thread hook = new Thread(() -> {
      stop.set(true);
      boolean clean;
      try {
        clean = printed.await(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        clean = false;
      }
      out.flush();
      err.flush();
      Runtime.getRuntime().halt(clean ? ExitCodes.OK : ExitCodes.INTERNAL);
    }, "ledger-events-stop");
    Runtime.getRuntime().addShutdownHook(hook);
    Cursor cursor = start;
    try (EventFollower follower = ledger.follow(start, PAGE)) {
      // No interrupt: the follower reads files through channels an interrupt would close.
      while (!stop.get() && left > 0) {
        Optional<Event> event = follower.next(POLL);
        if (event.isPresent()) {
          if (selected(event.get())) {
            out.println(Json.line(Json.event(event.get())));
            left--;
          }
          if (follower.buffered() == 0) {
            out.flush();
          }
        }
        cursor = follower.cursor();
      }
      out.flush();
      cursor = follower.cursor();
    } finally {
      err.println("cursor: " + cursor.token());
      err.flush();
      printed.countDown();
      if (!stop.get()) {
        try {
          // Ended by --limit or a failure: the exit code is this command's, not the hook's.
          Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException e) {
          // a signal arrived just now: the hook ends the JVM with 0 after this print
        }
      }
    }
    return ExitCodes.OK;
  }
}
