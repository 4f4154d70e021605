package dev.ledger.core.fs;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Group commit for one ledger's journal in this store: one {@code fdatasync} covers every
 * commit that is ready, and none is acknowledged before its force.
 *
 * <p><b>Protocol</b> (a write-ahead log's group commit). A writer holding the ledger's writer
 * lock writes its record without forcing it and reports it with {@link #written}, which gives
 * it a ticket; it lets go of the lock and calls {@link #await} with the ticket. A waiter whose
 * ticket is not yet durable becomes the <i>leader</i> if no force runs: it takes the newest
 * ticket written as its target, forces the journal channel outside every lock, marks
 * everything up to the target durable and wakes the waiters. Otherwise it waits for the
 * running force and checks again: what was written while that force ran is covered by the
 * next leader's force, which covers everything written by then. N writers ready together cost
 * one force; a writer alone costs one force, as without grouping. Tickets only grow, whatever
 * happens to the ledger's revisions (a removed and recreated ledger starts again at 1).
 *
 * <p><b>Wake-ups.</b> A waiter parks while a force runs (not on a monitor: a thread woken
 * from {@code Object.wait} must win the monitor back from its waker, often parking once
 * more). The thread that completes a force unparks every waiter it made durable, and the
 * threads a writer asked to be woken with its records ({@link #awaitWritten}), each once;
 * then one waiter still undurable, which leads the next force.
 *
 * <p><b>Exclusive forces.</b> One force of this group runs at a time: a leader's, or one the
 * writer-lock holder makes through {@link #forceNow} (before a checkpoint, at a segment roll,
 * after reading records of another writer) or {@link #settle} (before a channel closes).
 * Leaders never take the writer lock, so the lock holder may wait for a leader. Being
 * exclusive, forces mark tickets durable in order, and the announcements of durable commits
 * ({@link #written}'s {@code announce}: the store's commit listeners, the in-process follow
 * signal) run in commit order, one at a time, on the thread that made the force, before any
 * of the commits it covers returns.
 *
 * <p><b>Durable revisions.</b> {@link #forced} is the newest revision such that a force of the
 * journal completed after its record was written: every record up to it is on stable storage.
 * A writer stamps it into a record it writes while older records may still be unforced (the
 * record's {@code forcedThrough}, see {@link dev.ledger.core.internal.journal.CommitRecord}),
 * so that recovery can tell a power cut's damage to an unforced group from damage to records
 * that were forced.
 *
 * <p><b>Failure.</b> A failed force fails the group for good: every waiter not yet durable and
 * every later writer gets the error, and the ledger must be reopened (recovery reads what is
 * really on disk).
 *
 * <p>Thread-safe; one instance per ledger per store.
 */
final class ForceGroup {
  private static final Logger LOG = LoggerFactory.getLogger(ForceGroup.class);

  /** A force to run exclusively. */
  @FunctionalInterface
  interface Force {
    /**
     * Forces what the caller wrote.
     *
     * @throws IOException if it failed
     */
    void run() throws IOException;
  }

  /**
   * A thread parked until {@code ticket} is durable or the group failed: one in
   * {@link #await} ({@code leads}: it forces if it is handed the lead), or a caller a writer
   * served ({@link #awaitWritten}), which is only woken: its attempt may have failed, and then
   * it never waits here, so handing it the lead would leave the waiters after it parked.
   */
  private record Waiter(long ticket, Thread thread, boolean leads) {}

  /** A durable commit to announce. */
  private record Announcement(long ticket, Runnable run) {}

  /** Whether forces are made ({@code SYNC}); without, a leader only announces. */
  private final boolean sync;
  /** Told of each force made, for the store's metrics. */
  private final Runnable counted;
  private final Object lock = new Object();
  /** The newest ticket written; guarded by {@link #lock}. */
  private long writtenTicket;
  /** The newest ticket durable; guarded by {@link #lock}. */
  private long forcedTicket;
  /** The revision of {@link #writtenTicket}'s record; guarded by {@link #lock}. */
  private long writtenRevision;
  /** The newest revision durable; guarded by {@link #lock}. */
  private long forcedRevision;
  /** The channel holding the records after {@link #forcedTicket}; guarded by {@link #lock}. */
  private FileChannel channel;
  /** Whether a force runs; guarded by {@link #lock}. */
  private boolean forcing;
  /** The failed force, once one failed; guarded by {@link #lock}. */
  private IOException failure;
  /** Threads parked until their ticket is durable or the group failed; guarded by {@link #lock}. */
  private final List<Waiter> waiters = new ArrayList<>();
  /** Callers of {@link #forceNow} waiting for a force to end; guarded by {@link #lock}. */
  private int nowWaiting;
  /** Announcements of written commits not yet durable, in ticket order. */
  private final ArrayDeque<Announcement> announcements = new ArrayDeque<>();

  /**
   * A group for a journal written with forces ({@code sync}) or without: then nothing is
   * forced, and commits are announced in order and return at once. {@code counted} is told
   * of each force that succeeded (the store's {@code ledger.journal.forces}); it must not
   * throw.
   */
  ForceGroup(boolean sync, Runnable counted) {
    this.sync = sync;
    this.counted = counted;
  }

  /**
   * Starts over at {@code revision}, every record up to it durable: a tail rebuilt from the
   * files (and forced if its records might not be). Call under the writer lock, after
   * {@link #settle} of the channel given up.
   */
  void reset(long revision) {
    List<Thread> wake;
    synchronized (lock) {
      if (failure == null) {
        // A failed group keeps its waiters failed: what they wrote may be lost.
        forcedTicket = writtenTicket;
      }
      writtenRevision = revision;
      forcedRevision = revision;
      channel = null;
      announcements.clear();
      wake = takeDue();
    }
    unpark(wake);
  }

  /**
   * Reports the record of {@code revision}, just written (not forced) to {@code to}. Call
   * under the writer lock, in revision order.
   *
   * @param announce run once the record is durable, in commit order; null for none
   * @return the ticket to {@link #await}
   */
  long written(long revision, FileChannel to, Runnable announce) {
    synchronized (lock) {
      long ticket = ++writtenTicket;
      writtenRevision = revision;
      channel = to;
      if (announce != null) {
        announcements.add(new Announcement(ticket, announce));
      }
      return ticket;
    }
  }

  /** The newest revision known durable. */
  long forced() {
    synchronized (lock) {
      return forcedRevision;
    }
  }

  /** The failed force, or null. */
  IOException failure() {
    synchronized (lock) {
      return failure;
    }
  }

  /**
   * Returns once {@code ticket} is durable, forcing the journal as the leader of a group if
   * no force runs. Uninterruptible: the record is written, and its acknowledgement cannot be
   * abandoned half way (an interrupt is kept for the caller).
   *
   * @throws IOException the failed force, if one failed before {@code ticket} was durable
   */
  void await(long ticket) throws IOException {
    await(ticket, List.of());
  }

  /**
   * Returns once every record written so far is durable, as {@link #await} of the newest
   * ticket, or once a force failed: the failure is not thrown here but to each waiter of a
   * ticket it left undurable. For a writer that wrote records for the {@code served} threads,
   * parked meanwhile: each of them is unparked once, by the thread that completes the force
   * covering those records (or fails it), or here if they are durable already, so that,
   * woken once, it finds its commit durable.
   */
  void awaitWritten(List<Thread> served) {
    long ticket;
    synchronized (lock) {
      ticket = writtenTicket;
    }
    try {
      await(ticket, served);
    } catch (IOException e) {
      LOG.debug("a force failed; its waiters report it", e);
    }
  }

  /**
   * {@link #await} of {@code ticket}; the {@code alsoWake} threads are unparked once it is
   * durable or failed.
   */
  private void await(long ticket, List<Thread> alsoWake) throws IOException {
    boolean interrupted = false;
    Waiter me = null;
    try {
      while (true) {
        long targetTicket;
        long targetRevision;
        FileChannel leading;
        List<Thread> wakeNow = List.of();
        synchronized (lock) {
          if (!alsoWake.isEmpty()) {
            if (forcedTicket >= ticket || failure != null) {
              wakeNow = alsoWake;
            } else {
              for (Thread t : alsoWake) {
                waiters.add(new Waiter(ticket, t, false));
              }
            }
            alsoWake = List.of();
          }
          if (forcedTicket >= ticket) {
            targetTicket = 0; // done
          } else if (failure != null) {
            targetTicket = -2; // failed
          } else if (forcing) {
            if (me == null) {
              me = new Waiter(ticket, Thread.currentThread(), true);
              waiters.add(me);
            }
            targetTicket = -1; // park
          } else {
            forcing = true;
            targetTicket = writtenTicket;
          }
          targetRevision = writtenRevision;
          leading = channel;
        }
        unpark(wakeNow);
        if (targetTicket == 0) {
          return;
        }
        if (targetTicket == -2) {
          throw failure();
        }
        if (targetTicket == -1) {
          LockSupport.park(this);
          if (Thread.interrupted()) {
            interrupted = true;
          }
          continue;
        }
        runForce(sync ? channelForce(leading) : () -> { }, targetTicket, targetRevision);
      }
    } finally {
      if (me != null) {
        synchronized (lock) {
          waiters.remove(me);
        }
      }
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /**
   * Runs {@code force} exclusively (after a running one), then marks everything written so far
   * durable, through {@code revision}, and announces it. For the writer-lock holder, whose
   * {@code force} covers every record written (nothing is written while it holds the lock).
   *
   * @throws IOException if {@code force} failed; the group has failed then
   */
  void forceNow(Force force, long revision) throws IOException {
    long targetTicket;
    boolean interrupted = false;
    try {
      synchronized (lock) {
        nowWaiting++;
        try {
          while (forcing) {
            try {
              lock.wait();
            } catch (InterruptedException e) {
              interrupted = true;
            }
          }
        } finally {
          nowWaiting--;
        }
        if (failure != null) {
          throw failure;
        }
        forcing = true;
        targetTicket = writtenTicket;
      }
      runForce(force, targetTicket, revision);
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /**
   * Makes the records written to {@code closing} durable before it closes (a writer parked,
   * closed or recovering), so that no waiter is left with a channel nobody can force. Call
   * under the writer lock. A failed force becomes the group's failure, which its waiters
   * report; it is not thrown here, where the channel is given up anyway.
   */
  void settle(FileChannel closing) {
    long revision;
    synchronized (lock) {
      if (closing == null || channel != closing || writtenTicket <= forcedTicket
          || failure != null) {
        return;
      }
      revision = writtenRevision;
    }
    try {
      forceNow(sync ? () -> closing.force(false) : () -> { }, revision);
    } catch (IOException e) {
      LOG.debug("forcing a journal channel before closing it failed", e);
    }
  }

  private static Force channelForce(FileChannel leading) {
    return () -> leading.force(false);
  }

  /**
   * Runs {@code force} as the leader ({@link #forcing} set by the caller), marks what it
   * covers durable, announces it, unparks the waiters it made durable, and hands the lead
   * over to a waiter still undurable, if any.
   *
   * @throws IOException if {@code force} failed; the group has failed then
   */
  private void runForce(Force force, long targetTicket, long targetRevision)
      throws IOException {
    IOException failed = null;
    try {
      force.run();
      if (sync) {
        counted.run();
      }
    } catch (IOException e) {
      failed = e;
    } catch (RuntimeException e) {
      failed = new IOException("forcing the journal failed: " + e, e);
    }
    List<Announcement> due = new ArrayList<>();
    List<Thread> wake;
    synchronized (lock) {
      if (failed != null) {
        failure = failed;
        announcements.clear();
        wake = new ArrayList<>(waiters.size());
        for (Waiter w : waiters) {
          wake.add(w.thread());
        }
        waiters.clear();
        endForce();
      } else {
        wake = null;
        while (!announcements.isEmpty() && announcements.peekFirst().ticket() <= targetTicket) {
          due.add(announcements.pollFirst());
        }
      }
    }
    if (failed != null) {
      unpark(wake);
      throw failed;
    }
    try {
      for (Announcement a : due) {
        try {
          a.run().run();
        } catch (RuntimeException e) {
          LOG.warn("Telling of a durable commit failed; the commit stands", e);
        }
      }
    } finally {
      Thread next = null;
      synchronized (lock) {
        if (targetTicket > forcedTicket) {
          forcedTicket = targetTicket;
        }
        if (targetRevision > forcedRevision) {
          forcedRevision = targetRevision;
        }
        wake = takeDue();
        endForce();
        for (Waiter w : waiters) {
          if (w.leads()) {
            next = w.thread();
            break;
          }
        }
      }
      unpark(wake);
      if (next != null) {
        // Parked for a record written during this force: it leads the next one.
        LockSupport.unpark(next);
      }
    }
  }

  /** Ends the running force; under {@link #lock}. */
  private void endForce() {
    forcing = false;
    if (nowWaiting > 0) {
      lock.notifyAll();
    }
  }

  /** Takes the waiters whose ticket is durable; under {@link #lock}. */
  private List<Thread> takeDue() {
    List<Thread> due = new ArrayList<>();
    for (int i = 0; i < waiters.size(); ) {
      Waiter w = waiters.get(i);
      if (w.ticket() <= forcedTicket) {
        due.add(w.thread());
        waiters.remove(i);
      } else {
        i++;
      }
    }
    return due;
  }

  private static void unpark(List<Thread> threads) {
    for (Thread t : threads) {
      LockSupport.unpark(t);
    }
  }
}
