package dev.ledger.testing.base;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.platform.testkit.engine.EngineTestKit;
import org.junit.platform.testkit.engine.Events;

/** Seeds injected by type, the same for a test on every run, and reported on failure. */
class SeedExtensionTest {
  static final List<Long> SEEN = new ArrayList<>();

  /** Run by the engine test kit only (static nested classes are not discovered alone). */
  @ExtendWith(SeedExtension.class)
  static class Sample {
    @Test
    void passes(TestSeed seed, Random random, SplittableRandom splittable) {
      assertThat(random.nextLong()).isEqualTo(seed.random().nextLong());
      assertThat(splittable.nextLong()).isEqualTo(seed.splittable().nextLong());
      SEEN.add(seed.value());
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2})
    void parameterized(int n, TestSeed seed) {
      SEEN.add(seed.value());
    }

    @Test
    void fails(Random random) {
      throw new AssertionError("boom " + random.nextInt(10));
    }
  }

  private static Events run() {
    SEEN.clear();
    return EngineTestKit.engine("junit-jupiter").selectors(selectClass(Sample.class)).execute()
        .testEvents();
  }

  @Test
  void eachTestGetsItsOwnSeedAndTheSameOneOnEveryRun() {
    Events first = run();
    List<Long> seeds = List.copyOf(SEEN);
    Events second = run();
    assertThat(first.succeeded().count()).isEqualTo(3);
    assertThat(second.succeeded().count()).isEqualTo(3);
    assertThat(seeds).hasSize(3).doesNotHaveDuplicates();
    assertThat(SEEN).isEqualTo(seeds);
  }

  @Test
  void aFailureCarriesTheSeedThatReproducesIt() {
    Events events = run();
    assertThat(events.failed().count()).isEqualTo(1);
    Throwable failure = events.failed().stream().findFirst().orElseThrow()
        .getPayload(org.junit.platform.engine.TestExecutionResult.class).orElseThrow()
        .getThrowable().orElseThrow();
    assertThat(failure).isInstanceOf(AssertionError.class).hasMessageStartingWith("boom ");
    assertThat(failure.getSuppressed()).singleElement().satisfies(s -> assertThat(s.getMessage())
        .contains("-Dledger.seed=" + TestSeed.rootSeed())
        .contains("fails(java.util.Random)"));
  }
}
