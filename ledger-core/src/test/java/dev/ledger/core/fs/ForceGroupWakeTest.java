package dev.ledger.core.fs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/**
 * The wake-ups of {@link ForceGroup}: the threads a writer hands to {@link
 * ForceGroup#awaitWritten} are woken by the force that covers its records, never before it
 * and also when it fails; a waiter parked during a force leads the next one.
 */
class ForceGroupWakeTest {
  private static final long TIMEOUT_SECONDS = 30;

  /** A channel whose forces each wait for a permit, then succeed or fail as told. */
  static final class GatedChannel extends FileChannel {
    final Semaphore permits = new Semaphore(0);
    final CountDownLatch entered = new CountDownLatch(1);
    final AtomicInteger forces = new AtomicInteger();
    volatile IOException failWith;

    @Override
    public void force(boolean metaData) throws IOException {
      entered.countDown();
      permits.acquireUninterruptibly();
      forces.incrementAndGet();
      if (failWith != null) {
        throw failWith;
      }
    }

    @Override
    public int read(ByteBuffer dst) {
      throw new UnsupportedOperationException();
    }

    @Override
    public long read(ByteBuffer[] dsts, int offset, int length) {
      throw new UnsupportedOperationException();
    }

    @Override
    public int write(ByteBuffer src) {
      throw new UnsupportedOperationException();
    }

    @Override
    public long write(ByteBuffer[] srcs, int offset, int length) {
      throw new UnsupportedOperationException();
    }

    @Override
    public long position() {
      throw new UnsupportedOperationException();
    }

    @Override
    public FileChannel position(long newPosition) {
      throw new UnsupportedOperationException();
    }

    @Override
    public long size() {
      throw new UnsupportedOperationException();
    }

    @Override
    public FileChannel truncate(long size) {
      throw new UnsupportedOperationException();
    }

    @Override
    public long transferTo(long position, long count, WritableByteChannel target) {
      throw new UnsupportedOperationException();
    }

    @Override
    public long transferFrom(ReadableByteChannel src, long position, long count) {
      throw new UnsupportedOperationException();
    }

    @Override
    public int read(ByteBuffer dst, long position) {
      throw new UnsupportedOperationException();
    }

    @Override
    public int write(ByteBuffer src, long position) {
      throw new UnsupportedOperationException();
    }

    @Override
    public MappedByteBuffer map(MapMode mode, long position, long size) {
      throw new UnsupportedOperationException();
    }

    @Override
    public FileLock lock(long position, long size, boolean shared) {
      throw new UnsupportedOperationException();
    }

    @Override
    public FileLock tryLock(long position, long size, boolean shared) {
      throw new UnsupportedOperationException();
    }

    @Override
    protected void implCloseChannel() {}
  }

  /**
   * A thread parked like a served caller: it parks until it finds {@code revision} durable or
   * the group failed (a wake-up before that, which park allows, only parks it again); returns
   * the revision it found durable.
   */
  private static CompletableFuture<Long> served(ForceGroup group, long revision,
      CountDownLatch parked, Thread[] thread) {
    CompletableFuture<Long> found = new CompletableFuture<>();
    Thread t = new Thread(() -> {
      parked.countDown();
      while (group.forced() < revision && group.failure() == null) {
        LockSupport.park();
      }
      found.complete(group.forced());
    }, "served-" + revision);
    thread[0] = t;
    t.setDaemon(true);
    t.start();
    return found;
  }

  /** {@code group.await(ticket)} on another thread; an I/O error fails the future. */
  private static CompletableFuture<Void> awaiting(ForceGroup group, long ticket) {
    return CompletableFuture.runAsync(() -> {
      try {
        group.await(ticket);
      } catch (IOException e) {
        throw new AssertionError(e);
      }
    });
  }

  private static void awaitParked(Thread t) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(TIMEOUT_SECONDS);
    while (t.getState() != Thread.State.WAITING) {
      assertThat(System.nanoTime()).as("%s parked", t.getName()).isLessThan(deadline);
      Thread.sleep(1);
    }
  }

  @Test
  void theThreadsAWriterServedAreWokenByTheForceThatCoversItsRecords() throws Exception {
    GatedChannel channel = new GatedChannel();
    ForceGroup group = new ForceGroup(true, () -> { });
    group.reset(0);
    Thread[] s1 = new Thread[1];
    Thread[] s2 = new Thread[1];
    CompletableFuture<Long> first = served(group, 1, new CountDownLatch(1), s1);
    CompletableFuture<Long> second = served(group, 2, new CountDownLatch(1), s2);
    awaitParked(s1[0]);
    awaitParked(s2[0]);
    group.written(1, channel, null);
    group.written(2, channel, null);
    CompletableFuture<Void> holder = CompletableFuture.runAsync(
        () -> group.awaitWritten(List.of(s1[0], s2[0])));
    assertThat(channel.entered.await(TIMEOUT_SECONDS, TimeUnit.SECONDS)).isTrue();
    // The force runs: nobody is acknowledged yet.
    assertThat(group.forced()).isZero();
    assertThat(first).isNotDone();
    assertThat(second).isNotDone();
    assertThat(holder).isNotDone();
    channel.permits.release();
    holder.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
    assertThat(first.get(TIMEOUT_SECONDS, TimeUnit.SECONDS)).isEqualTo(2);
    assertThat(second.get(TIMEOUT_SECONDS, TimeUnit.SECONDS)).isEqualTo(2);
    assertThat(channel.forces).hasValue(1);
  }

  @Test
  void aWaiterParkedDuringAForceLeadsTheNextOne() throws Exception {
    GatedChannel channel = new GatedChannel();
    AtomicInteger counted = new AtomicInteger();
    ForceGroup group = new ForceGroup(true, counted::incrementAndGet);
    group.reset(0);
    long one = group.written(1, channel, null);
    CompletableFuture<Void> leader = awaiting(group, one);
    assertThat(channel.entered.await(TIMEOUT_SECONDS, TimeUnit.SECONDS)).isTrue();
    long two = group.written(2, channel, null);
    Thread[] waiter = new Thread[1];
    CompletableFuture<Void> next = new CompletableFuture<>();
    waiter[0] = new Thread(() -> {
      try {
        group.await(two);
        next.complete(null);
      } catch (Throwable t) {
        next.completeExceptionally(t);
      }
    }, "waiter-2");
    waiter[0].setDaemon(true);
    waiter[0].start();
    awaitParked(waiter[0]);
    channel.permits.release(2);
    leader.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
    next.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
    assertThat(group.forced()).isEqualTo(2);
    // Its record was written during the first force: a second force covered it.
    assertThat(channel.forces).hasValue(2);
    assertThat(counted).hasValue(2);
  }

  @Test
  void aFailedForceWakesTheServedThreadsAndEveryWaiterReportsIt() throws Exception {
    GatedChannel channel = new GatedChannel();
    ForceGroup group = new ForceGroup(true, () -> { });
    group.reset(0);
    Thread[] s1 = new Thread[1];
    CompletableFuture<Long> first = served(group, 1, new CountDownLatch(1), s1);
    awaitParked(s1[0]);
    long ticket = group.written(1, channel, null);
    IOException broken = new IOException("device gone");
    channel.failWith = broken;
    CompletableFuture<Void> holder = CompletableFuture.runAsync(
        () -> group.awaitWritten(List.of(s1[0])));
    assertThat(channel.entered.await(TIMEOUT_SECONDS, TimeUnit.SECONDS)).isTrue();
    channel.permits.release();
    // The holder does not throw: its waiters report the failure.
    holder.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
    assertThat(first.get(TIMEOUT_SECONDS, TimeUnit.SECONDS)).isZero();
    assertThat(catchThrowable(() -> group.await(ticket))).isSameAs(broken);
    assertThat(group.forced()).isZero();
  }

  @Test
  void aServedCallerThatNeverWaitsIsNotHandedTheLead() throws Exception {
    GatedChannel channel = new GatedChannel();
    ForceGroup group = new ForceGroup(true, () -> { });
    group.reset(0);
    long one = group.written(1, channel, null);
    CompletableFuture<Void> leader = awaiting(group, one);
    assertThat(channel.entered.await(TIMEOUT_SECONDS, TimeUnit.SECONDS)).isTrue();
    group.written(2, channel, null);
    // A caller whose attempt failed: woken once, it returns its error and never waits for a
    // force. The holder hands it over first, then parks itself behind it.
    Thread failed = new Thread(LockSupport::park, "failed-attempt");
    failed.setDaemon(true);
    failed.start();
    CompletableFuture<Void> holderDone = new CompletableFuture<>();
    Thread holder = new Thread(() -> {
      group.awaitWritten(List.of(failed));
      holderDone.complete(null);
    }, "holder");
    holder.setDaemon(true);
    holder.start();
    awaitParked(holder);
    channel.permits.release(2);
    leader.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
    // The holder, not the failed caller, leads the force of record 2.
    holderDone.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
    assertThat(group.forced()).isEqualTo(2);
    assertThat(channel.forces).hasValue(2);
    failed.join(TimeUnit.SECONDS.toMillis(TIMEOUT_SECONDS));
    assertThat(failed.isAlive()).isFalse();
  }
}
