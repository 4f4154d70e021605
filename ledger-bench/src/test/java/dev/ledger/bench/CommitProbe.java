package dev.ledger.bench;

import com.sun.management.ThreadMXBean;
import dev.ledger.core.Durability;
import dev.ledger.core.LedgerOptions;
import dev.ledger.core.fs.FileLedgerStore;
import dev.ledger.core.memory.InMemoryLedgerStore;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * A diagnostic program, not a test: scenario 1's commit (a ~2 KiB state, one small change,
 * one ~200-byte event) on one ledger, in turns with the floor of record and the other
 * contenders named, and what one commit costs each of them, per round and as medians:
 * wall time, the committing thread's CPU time and allocation, its {@code read}/{@code write}
 * family system calls and bytes (from {@code /proc/thread-self/io}), and how much the ledger's
 * files grew.
 *
 * <p>Only the measured commits of a contender run between the two marker files it creates
 * ({@code mark-<contender>-<round>-start} and {@code -end} in the probe's directory), so a
 * system call trace of the whole process ({@code strace -f}) can be cut to them.
 *
 * <p>Arguments: the directory (created; should be empty), then {@code key=value} pairs:
 * {@code contenders} (comma-separated of {@code floor}, {@code sync}, {@code nosync},
 * {@code large-small}, {@code large-full}, {@code memory}, {@code sync-metered},
 * {@code nosync-metered}, and {@code floor64k} and {@code append64k}, the floors for a 64 KiB
 * record; default {@code floor,sync}), {@code rounds} (5),
 * {@code commits} per contender per round (2000), {@code warmup} commits per contender before
 * the rounds (20000), {@code checkpoint} interval of the ledgers (the default's 256),
 * {@code nosync} ({@code true} opens every ledger contender without forces; default false).
 */
public final class CommitProbe {
  private CommitProbe() {}

  /** A contender and its measurements. */
  private static final class Contender {
    final String name;
    final CommitTarget target;
    final Path dir;
    final Stats wallMicros = new Stats();
    final Stats cpuMicros = new Stats();
    final Stats allocBytes = new Stats();
    final Stats readCalls = new Stats();
    final Stats writeCalls = new Stats();
    final Stats writtenBytes = new Stats();
    final Stats storageBytes = new Stats();
    final Stats grownBytes = new Stats();

    Contender(String name, CommitTarget target, Path dir) {
      this.name = name;
      this.target = target;
      this.dir = dir;
    }
  }

  /**
   * Runs the probe.
   *
   * @param args the directory, then {@code key=value} settings (see the class comment)
   * @throws Exception if a contender fails
   */
  public static void main(String[] args) throws Exception {
    Path dir = Path.of(args[0]);
    Map<String, String> settings = new LinkedHashMap<>();
    for (int i = 1; i < args.length; i++) {
      String[] pair = args[i].split("=", 2);
      settings.put(pair[0], pair[1]);
    }
    int rounds = Integer.parseInt(settings.getOrDefault("rounds", "5"));
    int commits = Integer.parseInt(settings.getOrDefault("commits", "2000"));
    int warmup = Integer.parseInt(settings.getOrDefault("warmup", "20000"));
    int checkpoint = Integer.parseInt(settings.getOrDefault("checkpoint", "256"));
    LedgerOptions options = LedgerOptions.defaults().withCheckpointInterval(checkpoint);
    if (Boolean.parseBoolean(settings.getOrDefault("nosync", "false"))) {
      // Every ledger contender without forces: what the commit path costs in CPU alone.
      options = options.withDurability(Durability.UNSAFE_NO_SYNC);
    }
    Files.createDirectories(dir);
    List<Contender> contenders = new ArrayList<>();
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    for (String name : settings.getOrDefault("contenders", "floor,sync").split(",")) {
      Path home = dir.resolve(name);
      CommitTarget target = switch (name) {
        case "floor" -> new FloorAppend(home.resolve("preallocated"), true);
        case "sync" -> new LedgerTarget(FileLedgerStore.open(home, options), "run", true);
        case "nosync" -> new LedgerTarget(FileLedgerStore.open(home,
            options.withDurability(Durability.UNSAFE_NO_SYNC)), "run", true);
        case "large-small" -> new LargeLedgerTarget(home, false, options);
        case "large-full" -> new LargeLedgerTarget(home, true, options);
        case "memory" -> new LedgerTarget(InMemoryLedgerStore.create(), "run", true);
        case "sync-metered" -> new LedgerTarget(FileLedgerStore.open(home,
            options.withMeterRegistry(registry)), "run", true);
        case "nosync-metered" -> new LedgerTarget(FileLedgerStore.open(home,
            options.withDurability(Durability.UNSAFE_NO_SYNC).withMeterRegistry(registry)),
            "run", true);
        case "floor64k" -> new SizedFloor(home.resolve("preallocated"), 64 * 1024, true);
        case "append64k" -> new SizedFloor(home.resolve("records"), 64 * 1024, false);
        default -> throw new IllegalArgumentException("unknown contender " + name);
      };
      contenders.add(new Contender(name, target, home));
    }
    System.out.printf("probe: %d rounds of %d commits after %d warm-up commits each, "
        + "checkpoint interval %d, load %s%n", rounds, commits, warmup, checkpoint, load());
    try {
      for (Contender c : contenders) {
        for (int i = 0; i < warmup; i++) {
          c.target.commit();
        }
      }
      ThreadMXBean threads = (ThreadMXBean) ManagementFactory.getThreadMXBean();
      for (int round = 0; round < rounds; round++) {
        for (int k = 0; k < contenders.size(); k++) {
          // Rotated each round, so that no contender always runs first.
          Contender c = contenders.get((round + k) % contenders.size());
          long sizeBefore = size(c.dir);
          long[] ioBefore = threadIo();
          Files.createFile(dir.resolve("mark-" + c.name + "-" + round + "-start"));
          long cpu0 = threads.getCurrentThreadCpuTime();
          long alloc0 = threads.getCurrentThreadAllocatedBytes();
          long t0 = System.nanoTime();
          for (int i = 0; i < commits; i++) {
            c.target.commit();
          }
          long wall = System.nanoTime() - t0;
          long cpu = threads.getCurrentThreadCpuTime() - cpu0;
          long alloc = threads.getCurrentThreadAllocatedBytes() - alloc0;
          Files.createFile(dir.resolve("mark-" + c.name + "-" + round + "-end"));
          long[] ioAfter = threadIo();
          long grown = size(c.dir) - sizeBefore;
          c.wallMicros.add(wall / 1e3 / commits);
          c.cpuMicros.add(cpu / 1e3 / commits);
          c.allocBytes.add((double) alloc / commits);
          c.readCalls.add((double) (ioAfter[2] - ioBefore[2]) / commits);
          c.writeCalls.add((double) (ioAfter[3] - ioBefore[3]) / commits);
          c.writtenBytes.add((double) (ioAfter[1] - ioBefore[1]) / commits);
          c.storageBytes.add((double) (ioAfter[5] - ioBefore[5]) / commits);
          c.grownBytes.add((double) grown / commits);
          System.out.printf("round %d %-12s wall %7.1f us  cpu %6.1f us  alloc %8.0f B  "
              + "syscr %4.2f syscw %4.2f  wchar %7.0f B  write_bytes %7.0f B  grown %7.0f B%n",
              round, c.name, wall / 1e3 / commits, cpu / 1e3 / commits, (double) alloc / commits,
              (double) (ioAfter[2] - ioBefore[2]) / commits,
              (double) (ioAfter[3] - ioBefore[3]) / commits,
              (double) (ioAfter[1] - ioBefore[1]) / commits,
              (double) (ioAfter[5] - ioBefore[5]) / commits, (double) grown / commits);
        }
      }
    } finally {
      for (Contender c : contenders) {
        c.target.close();
      }
    }
    System.out.println("medians (load " + load() + "):");
    Contender floor = contenders.stream().filter(c -> c.name.equals("floor")).findFirst()
        .orElse(null);
    for (Contender c : contenders) {
      System.out.printf("  %-12s wall %7.1f us (%,.0f commits/s%s)  cpu %6.1f us  alloc %8.0f B"
          + "  syscr %4.2f syscw %4.2f  wchar %7.0f B  write_bytes %7.0f B  grown %7.0f B%n",
          c.name, c.wallMicros.median(), 1e6 / c.wallMicros.median(),
          floor == null || floor == c ? "" : String.format(", %.2fx the floor",
              floor.wallMicros.median() / c.wallMicros.median()),
          c.cpuMicros.median(), c.allocBytes.median(), c.readCalls.median(),
          c.writeCalls.median(), c.writtenBytes.median(), c.storageBytes.median(),
          c.grownBytes.median());
    }
  }

  /**
   * The floor for records of another size: overwrite {@code recordBytes} inside a file
   * preallocated with forced zeros (wrapping around), or append them, then
   * {@code force(false)}.
   */
  private static final class SizedFloor implements CommitTarget {
    private static final long PREALLOCATED = 64L << 20;
    private final FileChannel channel;
    private final ByteBuffer record;
    private final boolean preallocated;
    private long end;

    SizedFloor(Path file, int recordBytes, boolean preallocated) throws IOException {
      Files.createDirectories(file.getParent());
      this.preallocated = preallocated;
      this.channel = FileChannel.open(file, StandardOpenOption.CREATE,
          StandardOpenOption.WRITE, StandardOpenOption.READ);
      if (preallocated) {
        ByteBuffer zeros = ByteBuffer.allocate(4096);
        for (long at = 0; at < PREALLOCATED; at += zeros.capacity()) {
          zeros.clear();
          while (zeros.hasRemaining()) {
            channel.write(zeros, at + zeros.position());
          }
        }
        channel.force(true);
      }
      byte[] bytes = new byte[recordBytes];
      Arrays.fill(bytes, (byte) 'x');
      bytes[recordBytes - 1] = '\n';
      this.record = ByteBuffer.wrap(bytes);
    }

    @Override
    public void commit() throws IOException {
      if (preallocated && end + record.capacity() > PREALLOCATED) {
        end = 0;
      }
      record.clear();
      while (record.hasRemaining()) {
        end += channel.write(record, end);
      }
      channel.force(false);
    }

    @Override
    public void close() throws IOException {
      channel.close();
    }
  }

  /** rchar, wchar, syscr, syscw, read_bytes, write_bytes of the calling thread. */
  private static long[] threadIo() throws IOException {
    long[] values = new long[6];
    String[] keys = {"rchar", "wchar", "syscr", "syscw", "read_bytes", "write_bytes"};
    for (String line : Files.readAllLines(Path.of("/proc/thread-self/io"))) {
      String[] pair = line.split(":\\s*");
      for (int i = 0; i < keys.length; i++) {
        if (pair[0].equals(keys[i])) {
          values[i] = Long.parseLong(pair[1].trim());
        }
      }
    }
    return values;
  }

  /** The bytes of the regular files under {@code dir}. */
  private static long size(Path dir) throws IOException {
    if (!Files.isDirectory(dir)) {
      return 0;
    }
    try (Stream<Path> files = Files.walk(dir)) {
      return files.filter(Files::isRegularFile).mapToLong(p -> {
        try {
          return Files.size(p);
        } catch (IOException e) {
          return 0; // a temp file that went away meanwhile
        }
      }).sum();
    }
  }

  private static String load() {
    try {
      return Files.readString(Path.of("/proc/loadavg")).trim();
    } catch (IOException e) {
      return "unknown";
    }
  }
}
