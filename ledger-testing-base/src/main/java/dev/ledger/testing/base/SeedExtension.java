package dev.ledger.testing.base;

import java.util.Random;
import java.util.SplittableRandom;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.junit.jupiter.api.extension.TestExecutionExceptionHandler;

/**
 * Gives randomized JUnit 5 tests their {@link TestSeed} and reports it when they fail.
 *
 * <pre>{@code
 * @ExtendWith(SeedExtension.class)
 * class CursorFuzzTest {
 *   @Test
 *   void randomTokensAreRefused(Random random) { ... }   // or (TestSeed seed)
 * }
 * }</pre>
 *
 * <p>A test method (or a lifecycle method) may declare a parameter of type
 * {@link TestSeed}, {@link Random} or {@link SplittableRandom}; each gets the seed of the
 * test, named by its JUnit unique id (which includes the class, the method and, for
 * parameterized tests, the invocation). Every parameter of one invocation starts from the
 * same seed. When the test method throws, the seed and the {@code -Dledger.seed} that
 * reproduces it are added to the failure as a suppressed exception and printed on standard
 * error, then the failure goes on unchanged.
 *
 * <p>Stateless and thread-safe; register it with {@code @ExtendWith}.
 */
public final class SeedExtension implements ParameterResolver, TestExecutionExceptionHandler {
  /** Creates the extension; JUnit does it for {@code @ExtendWith(SeedExtension.class)}. */
  public SeedExtension() {}

  /**
   * The seed of the test (or, outside a test method, of the test class) of {@code context}.
   *
   * @param context the JUnit context of a test or a test class
   * @return the seed named by the context's unique id
   * @throws NullPointerException if {@code context} is null
   */
  public static TestSeed seedOf(ExtensionContext context) {
    return TestSeed.of(context.getUniqueId());
  }

  /**
   * Whether the parameter is a {@link TestSeed}, {@link Random} or {@link SplittableRandom}.
   *
   * @param parameter the parameter to resolve
   * @param context the test's context
   * @return true for the three supported types
   */
  @Override
  public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    Class<?> type = parameter.getParameter().getType();
    return type == TestSeed.class || type == Random.class || type == SplittableRandom.class;
  }

  /**
   * The test's seed, or a new generator seeded with it.
   *
   * @param parameter the parameter to resolve
   * @param context the test's context
   * @return a {@link TestSeed}, {@link Random} or {@link SplittableRandom}
   * @throws ParameterResolutionException if the type is not supported
   */
  @Override
  public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
    TestSeed seed = seedOf(context);
    Class<?> type = parameter.getParameter().getType();
    if (type == TestSeed.class) {
      return seed;
    }
    if (type == Random.class) {
      return seed.random();
    }
    if (type == SplittableRandom.class) {
      return seed.splittable();
    }
    throw new ParameterResolutionException("not a seed type: " + type);
  }

  /**
   * Adds the seed to the failure and prints it, then rethrows the failure.
   *
   * @param context the failed test's context
   * @param failure what the test threw
   * @throws Throwable always {@code failure}
   */
  @Override
  public void handleTestExecutionException(ExtensionContext context, Throwable failure)
      throws Throwable {
    TestSeed seed = seedOf(context);
    failure.addSuppressed(new SeedReport(seed));
    System.err.println(context.getDisplayName() + " failed with " + seed);
    throw failure;
  }

  /** Carries the seed into the failure's stack trace; never thrown. */
  private static final class SeedReport extends Exception {
    SeedReport(TestSeed seed) {
      super(seed.toString(), null, false, false);
    }
  }
}
