package dev.ledger.testing.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.File;
import java.lang.reflect.InvocationTargetException;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Micrometer is an optional dependency: stores without a meter registry run with no
 * Micrometer jar on the class path. The workload runs in a class loader over this test's
 * class path minus the Micrometer jars, whose parent is the platform loader (so no class
 * comes from the application loader): loading any Micrometer class there throws. A
 * deliberately broken workload shows that such a class load is what fails the harness.
 */
class NoMicrometerTest {
  private static final String REGISTRY = "io.micrometer.core.instrument.MeterRegistry";

  @TempDir
  Path dir;

  @Test
  void storesWithoutRegistryRunWithoutMicrometerOnTheClassPath() throws Exception {
    String summary = runWithoutMicrometer(NoMicrometerWorkload.class, dir);
    assertThat(summary).isEqualTo("revision=2,events=1,page=1 revision=2,events=1,page=1 "
        + "dequeued=[1] dequeued=[1] removed=1 removed=1");
  }

  /**
   * The harness catches the regression it is for: a store path with no registry that loads a
   * Micrometer class (not only one that hands the recorder a wrong type) fails it, and the
   * failure is the class load.
   */
  @Test
  void aMicrometerClassLoadOnTheNoRegistryPathFailsTheHarness(@TempDir Path elsewhere) {
    // With Micrometer on the class path the deliberately broken workload works: what fails
    // below is the missing class, nothing else.
    assertThat(MicrometerLeakWorkload.run(elsewhere)).isEqualTo("revision=1");

    assertThatThrownBy(() -> runWithoutMicrometer(MicrometerLeakWorkload.class, dir))
        .isInstanceOf(AssertionError.class)
        .hasMessageStartingWith("the workload failed without Micrometer")
        .satisfies(failure -> assertThat(failure.getCause())
            .isInstanceOf(NoClassDefFoundError.class)
            .hasMessageContaining("io/micrometer/core/instrument/Metrics"));
  }

  /**
   * Runs {@code workload.run(dir)} in a class loader over this test's class path minus the
   * Micrometer jars, whose parent is the platform loader.
   *
   * @return what the workload returned
   * @throws AssertionError naming the cause if loading or running the workload failed
   */
  private static String runWithoutMicrometer(Class<?> workload, Path dir) throws Exception {
    List<URL> kept = new ArrayList<>();
    List<String> removed = new ArrayList<>();
    for (String entry : classPath().split(File.pathSeparator)) {
      if (entry.isBlank()) {
        continue;
      }
      if (new File(entry).getName().startsWith("micrometer-")) {
        removed.add(entry);
      } else {
        kept.add(url(entry));
      }
    }
    // This test's own class path has Micrometer (a test dependency): taking it away is real.
    assertThat(Class.forName(REGISTRY)).isNotNull();
    assertThat(removed).as("Micrometer jars on the test class path").isNotEmpty();

    try (URLClassLoader isolated = new URLClassLoader(kept.toArray(URL[]::new),
        ClassLoader.getPlatformClassLoader())) {
      assertThatThrownBy(() -> Class.forName(REGISTRY, false, isolated))
          .isInstanceOf(ClassNotFoundException.class);
      String summary;
      try {
        Class<?> isolatedWorkload = Class.forName(workload.getName(), true, isolated);
        assertThat(isolatedWorkload.getClassLoader()).isSameAs(isolated);
        summary = (String) isolatedWorkload.getMethod("run", Path.class).invoke(null, dir);
      } catch (InvocationTargetException e) {
        throw new AssertionError("the workload failed without Micrometer: " + e.getCause(),
            e.getCause());
      } catch (LinkageError e) {
        throw new AssertionError("the workload failed without Micrometer: " + e, e);
      }
      // The library's classes came from the isolated loader, not from this test's.
      assertThat(Class.forName("dev.ledger.core.LedgerOptions", false, isolated))
          .isNotSameAs(dev.ledger.core.LedgerOptions.class);
      return summary;
    }
  }

  /** Surefire publishes the real class path when it runs tests from a manifest-only jar. */
  private static String classPath() {
    String surefire = System.getProperty("surefire.test.class.path");
    return surefire != null && !surefire.isBlank() ? surefire
        : System.getProperty("java.class.path");
  }

  private static URL url(String entry) {
    try {
      return new File(entry).toURI().toURL();
    } catch (MalformedURLException e) {
      throw new IllegalArgumentException("class path entry " + entry, e);
    }
  }
}
