package dev.ledger.bench;

import dev.ledger.artifacts.ArtifactOptions;
import dev.ledger.artifacts.AttemptSubmission;
import dev.ledger.artifacts.ContentId;
import dev.ledger.artifacts.fs.FileArtifactStore;
import dev.ledger.core.Durability;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Scenario 7: putting a large file as a blob against a plain SHA-256 of the same bytes, and
 * {@code getForAttempt} in a root with few and with many snapshots.
 */
final class ArtifactScenario {
  static final String NAME = "7. Artifacts";
  private static final int LOOKUPS = 2000;

  private ArtifactScenario() {}

  static void run(BenchConfig config, Report report) throws Exception {
    Path dir = config.dir().resolve("s7");
    Files.createDirectories(dir);
    Path input = dir.resolve("input.bin");
    writeInput(input, config.blobBytes());
    String size = config.blobBytes() >= 1L << 30 ? (config.blobBytes() >> 30) + " GiB"
        : (config.blobBytes() >> 20) + " MiB";
    Stats digest = report.stats(NAME, "SHA-256 (MessageDigest) of a " + size + " file",
        "MB/s");
    Stats put = report.stats(NAME, "blobs().put of the same file (SYNC)", "MB/s");
    Stats copy = report.stats(NAME, "copy the same file, one force at the end, no hashing", "MB/s");
    Stats digestCpu = report.stats(NAME, "SHA-256, process CPU per MB", "ms");
    Stats putCpu = report.stats(NAME, "blobs().put, process CPU per MB (all its threads)", "ms");
    Stats copyCpu = report.stats(NAME, "copy + one force, process CPU per MB", "ms");
    Stats deviceLimit = new Stats();
    String[] digestHex = new String[1];
    ContentId[] putId = new ContentId[1];
    for (int round = 0; round <= config.blobRounds(); round++) {
      double[] rates = new double[3];
      double[] cpuMillis = new double[3];
      Path storeDir = dir.resolve("put-" + round);
      Path copyFile = dir.resolve("copy.bin");
      int first = Turns.firstOfRound(3);
      for (int k = 0; k < 3; k++) {
        // The order rotates each round: none of the three always reads a file the one before
        // it has just pulled into the page cache, nor always writes after another's writeback.
        long c0 = processCpuNanos();
        int which = (first + k) % 3;
        switch (which) {
          case 0 -> {
            long t0 = System.nanoTime();
            String hex = sha256(input);
            rates[0] = config.blobBytes() / 1e6 / ((System.nanoTime() - t0) / 1e9);
            digestHex[0] = hex;
          }
          case 1 -> {
            long t1 = System.nanoTime();
            try (FileArtifactStore store = FileArtifactStore.open(storeDir)) {
              putId[0] = store.blobs().put(input);
            }
            rates[1] = config.blobBytes() / 1e6 / ((System.nanoTime() - t1) / 1e9);
            ScratchFiles.deleteTree(storeDir);
          }
          default -> {
            long t2 = System.nanoTime();
            copyForced(input, copyFile);
            rates[2] = config.blobBytes() / 1e6 / ((System.nanoTime() - t2) / 1e9);
            Files.delete(copyFile);
          }
        }
        cpuMillis[which] = (processCpuNanos() - c0) / 1e6 / (config.blobBytes() / 1e6);
      }
      if (!putId[0].toString().endsWith(digestHex[0])) {
        throw new IllegalStateException("digest mismatch: " + putId[0] + " vs " + digestHex[0]);
      }
      if (round > 0) {
        digest.add(rates[0]);
        put.add(rates[1]);
        copy.add(rates[2]);
        digestCpu.add(cpuMillis[0]);
        putCpu.add(cpuMillis[1]);
        copyCpu.add(cpuMillis[2]);
        deviceLimit.add(rates[1] / Math.min(rates[0], rates[2]));
      }
    }
    Files.delete(input);
    report.ratio(NAME, "put / the slower of SHA-256 and copy + one force (the device's limit for "
        + "a durable, hashed write)", deviceLimit.median(),
        Report.Goal.AT_LEAST, 0.85, "median of per-round ratios");
    report.ratio(NAME, "put / SHA-256", put, digest, Report.Goal.REPORT, 0);
    report.ratio(NAME, "copy + one force / SHA-256", copy, digest, Report.Goal.REPORT, 0);
    report.ratio(NAME, "put / copy + one force", put, copy, Report.Goal.REPORT, 0);

    int few = config.snapshots().get(0);
    int many = config.snapshots().get(1);
    Stats fewStats = report.stats(NAME, String.format("getForAttempt, %,d snapshots in the root",
        few), "µs");
    Stats manyStats = report.stats(NAME, String.format(
        "getForAttempt, %,d snapshots in the root", many), "µs");
    Stats freeze = report.stats(NAME, "freeze while filling the roots (no force)", "µs");
    ArtifactOptions fast = ArtifactOptions.defaults().withDurability(Durability.UNSAFE_NO_SYNC);
    try (FileArtifactStore store = FileArtifactStore.open(dir.resolve("snapshots"), fast)) {
      long t0 = System.nanoTime();
      fill(store, "few", few);
      fill(store, "many", many);
      freeze.add((System.nanoTime() - t0) / 1e3 / (few + many));
      SplittableRandom random = new SplittableRandom(7);
      for (int round = 0; round <= config.rounds(); round++) {
        double f = lookupMicros(store, "few", few, random);
        double m = lookupMicros(store, "many", many, random);
        if (round > 0) {
          fewStats.add(f);
          manyStats.add(m);
        }
      }
    }
    report.ratio(NAME, String.format("getForAttempt %,d / %,d snapshots", many, few), manyStats,
        fewStats, Report.Goal.AT_MOST, 1.5);
  }

  /** CPU time of this process (every thread: put hashes and writes on two), or 0 if unknown. */
  private static long processCpuNanos() {
    if (java.lang.management.ManagementFactory.getOperatingSystemMXBean()
        instanceof com.sun.management.OperatingSystemMXBean os) {
      return Math.max(0, os.getProcessCpuTime());
    }
    return 0;
  }

  private static void fill(FileArtifactStore store, String root, int count) {
    for (int i = 0; i < count; i++) {
      store.freeze(root, "attempt-" + i, AttemptSubmission.of("summary of attempt " + i,
          List.of(), List.of()));
    }
  }

  private static double lookupMicros(FileArtifactStore store, String root, int count,
      SplittableRandom random) {
    long t0 = System.nanoTime();
    for (int i = 0; i < LOOKUPS; i++) {
      if (store.getForAttempt(root, "attempt-" + random.nextInt(count)).isEmpty()) {
        throw new IllegalStateException("missing snapshot in " + root);
      }
    }
    return (System.nanoTime() - t0) / 1e3 / LOOKUPS;
  }

  private static void writeInput(Path file, long bytes) throws IOException {
    byte[] block = new byte[1 << 20];
    new SplittableRandom(42).nextBytes(block);
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE,
        StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE)) {
      for (long written = 0; written < bytes; written += block.length) {
        ByteBuffer.wrap(block).putLong(0, written);
        ByteBuffer b = ByteBuffer.wrap(block, 0, (int) Math.min(block.length, bytes - written));
        while (b.hasRemaining()) {
          ch.write(b);
        }
      }
    }
  }

  /**
   * Copies with the same 64 KiB buffer as the digest and forces the copy once at the end: a
   * naive copy, not a floor (put overlaps its forces with hashing and can beat it).
   */
  private static void copyForced(Path from, Path to) throws IOException {
    ByteBuffer buffer = ByteBuffer.allocate(64 * 1024);
    try (FileChannel in = FileChannel.open(from, StandardOpenOption.READ);
        FileChannel out = FileChannel.open(to, StandardOpenOption.CREATE_NEW,
            StandardOpenOption.WRITE)) {
      while (in.read(buffer.clear()) > 0) {
        buffer.flip();
        while (buffer.hasRemaining()) {
          out.write(buffer);
        }
      }
      out.force(true);
    }
  }

  static String sha256(Path file) throws Exception {
    MessageDigest md = MessageDigest.getInstance("SHA-256");
    ByteBuffer buffer = ByteBuffer.allocate(64 * 1024);
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
      while (ch.read(buffer.clear()) > 0) {
        md.update(buffer.flip());
      }
    }
    return HexFormat.of().formatHex(md.digest());
  }
}
