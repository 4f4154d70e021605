package dev.ledger.testing.base;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** One root seed reproduces every test's seed; names separate them. */
class TestSeedTest {
  private String saved;

  @BeforeEach
  void saveProperty() {
    saved = System.getProperty(TestSeed.PROPERTY);
  }

  @AfterEach
  void restoreProperty() {
    if (saved == null) {
      System.clearProperty(TestSeed.PROPERTY);
    } else {
      System.setProperty(TestSeed.PROPERTY, saved);
    }
  }

  @Test
  void theRootSeedIsThePropertyWhenSet() {
    System.setProperty(TestSeed.PROPERTY, "-42");
    assertThat(TestSeed.rootSeed()).isEqualTo(-42);
    TestSeed seed = TestSeed.of("SomeTest#method");
    assertThat(seed.root()).isEqualTo(-42);
    assertThat(seed.toString()).contains("-Dledger.seed=-42").contains("SomeTest#method");
  }

  @Test
  void withoutThePropertyTheRootIsFixedForTheJvm() {
    System.clearProperty(TestSeed.PROPERTY);
    long root = TestSeed.rootSeed();
    assertThat(TestSeed.rootSeed()).isEqualTo(root);
    assertThat(TestSeed.of("a")).isEqualTo(TestSeed.of("a"));
  }

  @Test
  void theSameRootAndNameGiveTheSameSequence() {
    System.setProperty(TestSeed.PROPERTY, "7");
    TestSeed first = TestSeed.of("Fuzz#cursor");
    System.setProperty(TestSeed.PROPERTY, "7");
    TestSeed again = TestSeed.of("Fuzz#cursor");
    assertThat(again.value()).isEqualTo(first.value());
    assertThat(again.random().nextLong()).isEqualTo(first.random().nextLong());
    assertThat(again.splittable().nextLong()).isEqualTo(first.splittable().nextLong());
    assertThat(again.derive("child-1")).isEqualTo(first.derive("child-1"));
  }

  @Test
  void namesAndRootsSeparateSeeds() {
    System.setProperty(TestSeed.PROPERTY, "7");
    Set<Long> values = new HashSet<>();
    for (int i = 0; i < 1000; i++) {
      values.add(TestSeed.of("Test#m[" + i + "]").value());
    }
    TestSeed parent = TestSeed.of("Test#m");
    values.add(parent.derive("a").value());
    values.add(parent.derive("b").value());
    System.setProperty(TestSeed.PROPERTY, "8");
    values.add(TestSeed.of("Test#m[0]").value());
    assertThat(values).hasSize(1003);
  }

  @Test
  void malformedPropertyIsRefusedNamingIt() {
    System.setProperty(TestSeed.PROPERTY, "0xBAD");
    assertThatThrownBy(TestSeed::rootSeed).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("-Dledger.seed must be a decimal long: '0xBAD'");
  }
}
