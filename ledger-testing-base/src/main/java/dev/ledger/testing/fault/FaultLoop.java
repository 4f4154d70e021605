package dev.ledger.testing.fault;

import dev.ledger.testing.base.TestSeed;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Objects;
import java.util.Optional;
import java.util.Random;
import java.util.stream.Stream;

/**
 * "Crash my code here": runs a piece of code on a {@link FaultyFileSystem} again and again,
 * with a power cut or an I/O error at its 1st, 2nd, 3rd … operation of one kind, and after
 * each fault lets a check reopen what the code left on disk and assert what survived. The
 * loop ends when the code completes without reaching the n-th operation: by then every
 * operation of that kind the code makes has been failed once.
 *
 * <pre>{@code
 * AtomicInteger acknowledged = new AtomicInteger();
 * int faults = FaultLoop.powerCutAt(Op.FORCE).run(tempDir,
 *     root -> {                                   // the code, on the faulty file system
 *       acknowledged.set(0);
 *       try (LedgerStore store = FileLedgerStore.open(root.resolve("store"))) {
 *         ... commit, then acknowledged.incrementAndGet() ...
 *       }
 *     },
 *     (root, fault) -> {                          // after the fault, on the real files
 *       try (LedgerStore store = FileLedgerStore.open(root.resolve("store"))) {
 *         ... assert that at least acknowledged.get() commits survived ...
 *       }
 *     });
 * }</pre>
 *
 * <p>Each run gets a fresh directory {@code <scratch>/<op>-<kind>-<n>} and a fresh faulty file
 * system over it. The code runs on its faulty root; an exception it throws after the fault is
 * expected (and handed to the check), but one thrown before any fault, or an {@link Error},
 * fails the loop. The check then runs on the real directory, with no fault: as a restarted
 * process would find the files. A run whose check passes has its directory deleted; a failing
 * one keeps it and fails the loop with an {@link AssertionError} naming the fault, the
 * directory, the seed and, for a power cut, what the cut lost. The loop also fails if the code
 * makes no operation of the kind at all (nothing would have been tested), or if it still
 * reaches the n-th one after {@link #withMaxRuns max runs}.
 *
 * <p>The code runs once per n, so it must start from nothing: reset what it records (such as
 * the count of acknowledged commits) at its start. The random choices of power cuts come from
 * {@link #withRandom}, by default from {@link TestSeed} (reproduce with {@code -Dledger.seed}).
 *
 * <p>Immutable: the {@code with…} methods return a new loop. Runs one thing at a time, on the
 * calling thread.
 */
public final class FaultLoop {
  /** The default bound on runs: far above what a store's single commit takes. */
  public static final int DEFAULT_MAX_RUNS = 1000;

  private final Op op;
  private final Persistence persistence; // null for a power cut
  private final Random random;
  private final Scenario setup;
  private final int maxRuns;

  private FaultLoop(Op op, Persistence persistence, Random random, Scenario setup,
      int maxRuns) {
    this.op = op;
    this.persistence = persistence;
    this.random = random;
    this.setup = setup;
    this.maxRuns = maxRuns;
  }

  /**
   * A loop that cuts power instead of performing the n-th operation of kind {@code op}, for
   * n = 1, 2, … (see {@link FaultyFileSystem} for what a cut keeps and loses).
   *
   * @param op the kind of operation at which power fails
   * @return the loop, with the default random source, no setup and {@value #DEFAULT_MAX_RUNS}
   *     runs at most
   * @throws NullPointerException if {@code op} is null
   */
  public static FaultLoop powerCutAt(Op op) {
    Objects.requireNonNull(op, "op");
    return new FaultLoop(op, null, null, null, DEFAULT_MAX_RUNS);
  }

  /**
   * A loop that fails the n-th operation of kind {@code op} with an {@code IOException}, for
   * n = 1, 2, …: only that one ({@link Persistence#TRANSIENT}) or every one from then on
   * ({@link Persistence#PERSISTENT}).
   *
   * @param op the kind of operation to fail
   * @param persistence whether the failure stays
   * @return the loop, with no setup and {@value #DEFAULT_MAX_RUNS} runs at most
   * @throws NullPointerException if an argument is null
   */
  public static FaultLoop ioErrorAt(Op op, Persistence persistence) {
    Objects.requireNonNull(op, "op");
    Objects.requireNonNull(persistence, "persistence");
    return new FaultLoop(op, persistence, null, null, DEFAULT_MAX_RUNS);
  }

  /**
   * This loop with its power cuts' choices taken from {@code random}, shared by all runs.
   *
   * @param random a seeded source (print its seed when the test fails)
   * @return a new loop
   * @throws NullPointerException if {@code random} is null
   */
  public FaultLoop withRandom(Random random) {
    Objects.requireNonNull(random, "random");
    return new FaultLoop(op, persistence, random, setup, maxRuns);
  }

  /**
   * This loop with {@code setup} run on the faulty root of each run before the fault is
   * planned: what it writes is the state before the code under test (its operations do not
   * count towards n, and it must not fail).
   *
   * @param setup code to run first, without faults
   * @return a new loop
   * @throws NullPointerException if {@code setup} is null
   */
  public FaultLoop withSetup(Scenario setup) {
    Objects.requireNonNull(setup, "setup");
    return new FaultLoop(op, persistence, random, setup, maxRuns);
  }

  /**
   * This loop with another bound on the number of runs.
   *
   * @param runs the most runs (faults) before the loop fails, at least 1
   * @return a new loop
   * @throws IllegalArgumentException if {@code runs} is less than 1
   */
  public FaultLoop withMaxRuns(int runs) {
    if (runs < 1) {
      throw new IllegalArgumentException("runs must be at least 1: " + runs);
    }
    return new FaultLoop(op, persistence, random, setup, runs);
  }

  /**
   * Runs the loop: for n = 1, 2, …, runs {@code code} with the fault at its n-th operation of
   * the kind, then {@code check} on what it left, until the code no longer reaches the n-th
   * operation.
   *
   * @param scratch an existing directory for the runs' directories
   * @param code the code under test, given the faulty root of its run
   * @param check the assertions after a fault, given the real directory of the run and the
   *     fault
   * @return how many faults were injected (one per run but the last), at least 1
   * @throws AssertionError if the check fails, the code fails without a fault or with an
   *     {@link Error}, the code makes no operation of the kind, or the loop exceeds its runs
   * @throws NullPointerException if an argument is null
   * @throws UncheckedIOException if a run's directory cannot be created or deleted
   */
  public int run(Path scratch, Scenario code, Check check) {
    Objects.requireNonNull(scratch, "scratch");
    Objects.requireNonNull(code, "code");
    Objects.requireNonNull(check, "check");
    String kind = persistence == null ? "power-cut"
        : persistence.name().toLowerCase(java.util.Locale.ROOT) + "-error";
    TestSeed seed = TestSeed.of(FaultLoop.class.getSimpleName() + "/" + op + "/" + kind);
    Random source = random != null ? random : seed.random();
    String seedNote = random != null ? "the caller's random source" : seed.toString();
    for (int n = 1; n <= maxRuns; n++) {
      String where = kind + " at " + op + " #" + n;
      Path dir = createRunDirectory(scratch.resolve(op.name().toLowerCase(java.util.Locale.ROOT)
          + "-" + kind + "-" + n));
      FaultyFileSystem fs = FaultyFileSystem.over(dir);
      if (setup != null) {
        try {
          setup.run(fs.root());
        } catch (Exception e) {
          throw new AssertionError(where + ": the setup failed, with no fault planned", e);
        }
      }
      long before = fs.injected();
      if (persistence == null) {
        fs.powerCutAt(op, n, source);
      } else {
        fs.failAt(op, n, persistence);
      }
      String[] lost = {""};
      if (persistence == null) {
        // The cut happens inside the code's n-th operation; its report is taken there.
        fs.onPowerCut(report -> lost[0] = report);
      }
      Exception thrown = null;
      try {
        code.run(fs.root());
      } catch (Exception e) {
        thrown = e;
      } catch (Error e) {
        throw new AssertionError(where + ": the code threw an Error (" + seedNote + ")", e);
      }
      boolean injected = fs.injected() > before;
      fs.clearFaults();
      if (!injected) {
        if (thrown != null) {
          throw new AssertionError(where + ": the code failed before any fault (" + seedNote
              + "), in " + dir, thrown);
        }
        if (n == 1) {
          throw new AssertionError("the code made no " + op + " operation: " + kind
              + " loop tested nothing");
        }
        deleteRecursively(dir);
        return n - 1;
      }
      Fault fault = new Fault(op, n, persistence == null ? Optional.empty()
          : Optional.of(persistence), Optional.ofNullable(thrown), lost[0]);
      try {
        check.check(dir, fault);
      } catch (Exception | AssertionError e) {
        throw new AssertionError(fault + " (" + seedNote + "), files kept in " + dir
            + (lost[0].isEmpty() ? "" : "\nlost in the cut:\n" + lost[0]) + "\n" + e, e);
      }
      deleteRecursively(dir);
    }
    throw new AssertionError(kind + " at " + op + ": the code still reached operation #"
        + maxRuns + " after " + maxRuns + " runs; raise withMaxRuns if that is expected");
  }

  private static Path createRunDirectory(Path dir) {
    try {
      deleteRecursively(dir);
      return Files.createDirectories(dir);
    } catch (UncheckedIOException e) {
      throw e;
    } catch (IOException e) {
      throw new UncheckedIOException("creating " + dir, e);
    }
  }

  private static void deleteRecursively(Path dir) {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> all = Files.walk(dir)) {
      for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("deleting " + dir, e);
    }
  }

  /** Code run on a directory: the code under test, or a setup. */
  @FunctionalInterface
  public interface Scenario {
    /**
     * Runs on {@code root}, a directory of a {@link FaultyFileSystem}.
     *
     * @param root the run's root directory; open stores on it or below it
     * @throws Exception whatever the code throws; after a fault, that is expected
     */
    void run(Path root) throws Exception;
  }

  /** The assertions after a fault: reopen what the code left and check what survived. */
  @FunctionalInterface
  public interface Check {
    /**
     * Checks the run's files after {@code fault}.
     *
     * @param root the run's directory on the default file system, with no fault: the files
     *     as a restarted process would find them
     * @param fault the fault injected, and what the code did about it
     * @throws Exception if the check fails; an {@link AssertionError} fails it too
     */
    void check(Path root, Fault fault) throws Exception;
  }

  /**
   * The fault of one run.
   *
   * @param op the kind of operation that failed or at which power was cut
   * @param nth which operation of that kind, counted from the start of the code (after the
   *     setup)
   * @param ioError empty for a power cut; the persistence of the I/O error otherwise
   * @param thrown what the code threw, if it did not complete
   * @param lost for a power cut, what it undid or damaged, one line each (empty if nothing
   *     unforced was pending); empty for an I/O error
   */
  public record Fault(Op op, long nth, Optional<Persistence> ioError,
      Optional<Exception> thrown, String lost) {
    /**
     * Checks the components.
     *
     * @param op the kind of operation
     * @param nth which operation of that kind
     * @param ioError empty for a power cut
     * @param thrown what the code threw, if anything
     * @param lost what a power cut lost
     * @throws NullPointerException if a component is null
     */
    public Fault {
      Objects.requireNonNull(op, "op");
      Objects.requireNonNull(ioError, "ioError");
      Objects.requireNonNull(thrown, "thrown");
      Objects.requireNonNull(lost, "lost");
    }

    /**
     * Whether power was cut (rather than one operation failing).
     *
     * @return true for a power cut
     */
    public boolean powerCut() {
      return ioError.isEmpty();
    }

    /**
     * The fault in words, for messages.
     *
     * @return for example {@code "power cut at FORCE #3"}
     */
    @Override
    public String toString() {
      return (powerCut() ? "power cut" : ioError.get().name().toLowerCase(java.util.Locale.ROOT)
          + " I/O error") + " at " + op + " #" + nth
          + thrown.map(e -> ", the code threw " + e).orElse(", the code completed");
    }
  }
}
