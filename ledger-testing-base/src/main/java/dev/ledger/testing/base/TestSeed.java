package dev.ledger.testing.base;

import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.Objects;
import java.util.Random;
import java.util.SplittableRandom;

/**
 * The seed of one randomized test, derived from the run's root seed and the test's name, so
 * that one number reproduces every randomized test of a run.
 *
 * <p>The root seed is the system property {@value #PROPERTY} when it is set (a decimal
 * {@code long}), else chosen at random once per JVM. A test's seed is a fixed function of the
 * root and the test's name: rerunning a failed test alone, or the whole suite, with
 * {@code -Dledger.seed=<root>} gives it the same seed and so the same random choices. (Timing
 * that the OS decides, such as when a child process dies, is not reproduced.)
 *
 * <p>Print the seed with every failure: {@link #toString()} says how to reproduce it, and
 * {@link SeedExtension} adds it to any failure of a JUnit test that uses it.
 *
 * @param root the run's root seed, the value to pass as {@code -Dledger.seed}
 * @param name the test's name, unique within the run (for a JUnit test, its unique id)
 * @param value the test's own seed: feed it to {@link Random} or {@link SplittableRandom}
 */
public record TestSeed(long root, String name, long value) {
  /** The system property that fixes the root seed: {@code -Dledger.seed=<decimal long>}. */
  public static final String PROPERTY = "ledger.seed";

  private static final long RANDOM_ROOT = new SecureRandom().nextLong();

  /**
   * Checks the components.
   *
   * @param root the run's root seed
   * @param name the test's name
   * @param value the test's own seed
   * @throws NullPointerException if {@code name} is null
   */
  public TestSeed {
    Objects.requireNonNull(name, "name");
  }

  /**
   * The root seed of this run: {@code -Dledger.seed} if set, else a random one fixed for the
   * life of this JVM.
   *
   * @return the root seed
   * @throws IllegalArgumentException if the property is set but is not a decimal long
   */
  public static long rootSeed() {
    String property = System.getProperty(PROPERTY);
    if (property == null || property.isBlank()) {
      return RANDOM_ROOT;
    }
    try {
      return Long.parseLong(property.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("-D" + PROPERTY + " must be a decimal long: '"
          + property + "'", e);
    }
  }

  /**
   * The seed of the test called {@code name} in this run.
   *
   * @param name a name unique within the run, stable across runs (such as
   *     {@code "MyTest#fuzzesCursors"})
   * @return the test's seed, derived from {@link #rootSeed()} and {@code name}
   * @throws NullPointerException if {@code name} is null
   * @throws IllegalArgumentException if {@code -Dledger.seed} is set but malformed
   */
  public static TestSeed of(String name) {
    Objects.requireNonNull(name, "name");
    long root = rootSeed();
    return new TestSeed(root, name, derive(root, name));
  }

  /**
   * A new {@link Random} seeded with {@link #value()}: the same sequence on every call.
   *
   * @return a fresh generator
   */
  public Random random() {
    return new Random(value);
  }

  /**
   * A new {@link SplittableRandom} seeded with {@link #value()}.
   *
   * @return a fresh generator
   */
  public SplittableRandom splittable() {
    return new SplittableRandom(value);
  }

  /**
   * The seed of a part of this test (a child process, a thread, a round), derived from this
   * seed and {@code part}, so that each part has its own reproducible sequence.
   *
   * @param part the part's name, unique within this test
   * @return the part's seed, with the same root
   * @throws NullPointerException if {@code part} is null
   */
  public TestSeed derive(String part) {
    Objects.requireNonNull(part, "part");
    String child = name + "/" + part;
    return new TestSeed(root, child, derive(value, part));
  }

  /**
   * How to reproduce this seed, for failure messages.
   *
   * @return for example {@code "seed 42 of MyTest#x (reproduce with -Dledger.seed=7)"}
   */
  @Override
  public String toString() {
    return "seed " + value + " of " + name + " (reproduce with -D" + PROPERTY + "=" + root + ")";
  }

  /** A 64-bit FNV-1a hash of the name mixed into the parent with SplitMix64's finalizer. */
  private static long derive(long parent, String name) {
    long hash = 0xcbf29ce484222325L;
    for (byte b : name.getBytes(StandardCharsets.UTF_8)) {
      hash ^= b & 0xff;
      hash *= 0x100000001b3L;
    }
    long z = parent + 0x9e3779b97f4a7c15L * (hash | 1);
    z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
    z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
    return z ^ (z >>> 31);
  }
}
