package dev.ledger.artifacts.fs;

import dev.ledger.artifacts.ArtifactOptions;
import dev.ledger.artifacts.ContentId;
import dev.ledger.artifacts.GeneratedInputStream;
import dev.ledger.core.Durability;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.stream.Stream;

/**
 * Measurement, not a test: times {@code put} of a large file (durable and without
 * {@code force}) against plain {@code MessageDigest} SHA-256 over the same bytes, read the
 * same way (64 KiB buffer), in the same run, and prints per-round times and medians.
 * The file is written once first, so all rounds read it from the page cache.
 *
 * <p>Arguments: {@code <work dir> [MiB, default 1024] [rounds, default 5]}. Each round puts
 * into a fresh store, removed afterwards; one warm-up round is not counted.
 */
public final class PutThroughput {
  private PutThroughput() {}

  /** Runs the measurement; see the class comment for the arguments. */
  public static void main(String[] args) throws Exception {
    Path work = Path.of(args[0]);
    int mib = args.length > 1 ? Integer.parseInt(args[1]) : 1024;
    int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 5;
    Files.createDirectories(work);
    Path input = work.resolve("input.bin");
    try (OutputStream out = Files.newOutputStream(input)) {
      new GeneratedInputStream(mib * 1024L * 1024L, 1234).transferTo(out);
    }
    System.out.printf("java %s, %s, %d cpus; %d MiB input; %d rounds after 1 warm-up%n",
        System.getProperty("java.version"), System.getProperty("os.arch"),
        Runtime.getRuntime().availableProcessors(), mib, rounds);
    List<Double> digest = new ArrayList<>();
    List<Double> putSync = new ArrayList<>();
    List<Double> putNoSync = new ArrayList<>();
    String expected = null;
    for (int round = 0; round <= rounds; round++) {
      long t0 = System.nanoTime();
      String hex = digestOf(input);
      double d = seconds(t0);
      double s = timePut(work.resolve("sync-" + round), input, Durability.SYNC, hex);
      double n = timePut(work.resolve("nosync-" + round), input, Durability.UNSAFE_NO_SYNC, hex);
      if (expected == null) {
        expected = hex;
      }
      System.out.printf("round %d%s: digest %.3f s, put(SYNC) %.3f s, put(NO_SYNC) %.3f s%n",
          round, round == 0 ? " (warm-up)" : "", d, s, n);
      if (round > 0) {
        digest.add(d);
        putSync.add(s);
        putNoSync.add(n);
      }
    }
    Files.delete(input);
    report("MessageDigest SHA-256", mib, digest, median(digest));
    report("put, Durability.SYNC", mib, putSync, median(digest));
    report("put, UNSAFE_NO_SYNC", mib, putNoSync, median(digest));
  }

  private static String digestOf(Path file) throws IOException {
    MessageDigest md = Sha256.newDigest();
    byte[] buffer = new byte[Sha256.BUFFER];
    try (InputStream in = Files.newInputStream(file)) {
      for (int n; (n = in.read(buffer)) >= 0; ) {
        md.update(buffer, 0, n);
      }
    }
    return HexFormat.of().formatHex(md.digest());
  }

  private static double timePut(Path base, Path input, Durability durability, String hex)
      throws IOException {
    double elapsed;
    try (FileArtifactStore store = FileArtifactStore.open(base,
        ArtifactOptions.defaults().withDurability(durability))) {
      long t0 = System.nanoTime();
      ContentId id = store.blobs().put(input);
      elapsed = seconds(t0);
      if (!id.hex().equals(hex)) {
        throw new AssertionError("put gave " + id + ", digest gave " + hex);
      }
    }
    try (Stream<Path> paths = Files.walk(base)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
    return elapsed;
  }

  private static double seconds(long startNanos) {
    return (System.nanoTime() - startNanos) / 1e9;
  }

  private static double median(List<Double> values) {
    List<Double> sorted = new ArrayList<>(values);
    sorted.sort(null);
    int m = sorted.size() / 2;
    return sorted.size() % 2 == 1 ? sorted.get(m) : (sorted.get(m - 1) + sorted.get(m)) / 2;
  }

  private static void report(String what, int mib, List<Double> times, double digestMedian) {
    double median = median(times);
    double min = times.stream().min(Double::compare).orElseThrow();
    double max = times.stream().max(Double::compare).orElseThrow();
    System.out.printf("%-24s median %.3f s = %7.1f MiB/s (min %.3f s, max %.3f s, spread "
        + "%.0f%%), %.2fx the digest time%n", what, median, mib / median, min, max,
        100 * (max - min) / median, median / digestMedian);
  }
}
