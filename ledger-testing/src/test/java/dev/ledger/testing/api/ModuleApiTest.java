package dev.ledger.testing.api;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ledger.testing.api.fixture.Clean;
import dev.ledger.testing.api.fixture.Leaky;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The published modules' API names no internal type: every {@code dev.ledger.*} type in a
 * public signature of a package exported to everyone is itself public and in such a package
 * (of any published module). And the packages of the library do not depend on each other in
 * a cycle.
 */
class ModuleApiTest {
  private static final Set<String> PUBLISHED = Set.of("dev.ledger.core", "dev.ledger.artifacts",
      "dev.ledger.collections", "dev.ledger.registry", "dev.ledger.testing.base",
      "dev.ledger.testing");

  private static final List<PublishedModules.Module> MODULES = PublishedModules.onClassPath();

  private static Set<String> exported() {
    return MODULES.stream().flatMap(m -> m.unqualifiedExports().stream())
        .collect(Collectors.toCollection(TreeSet::new));
  }

  @Test
  void everyPublishedModuleIsFoundWithItsDescriptor() {
    assertThat(MODULES.stream().map(PublishedModules.Module::name))
        .as("published modules on the test class path").containsAll(PUBLISHED);
    assertThat(exported()).contains("dev.ledger.core", "dev.ledger.core.fs",
        "dev.ledger.artifacts").noneMatch(p -> p.contains(".internal"));
  }

  @Test
  void noPublicSignatureOfAnExportedPackageNamesAnInternalType() throws Exception {
    Set<String> exported = exported();
    List<String> leaks = new ArrayList<>();
    int checked = 0;
    for (PublishedModules.Module module : MODULES) {
      Set<String> packages = module.unqualifiedExports();
      for (String name : module.classNames()) {
        String pkg = name.substring(0, name.lastIndexOf('.'));
        if (!packages.contains(pkg)) {
          continue;
        }
        Class<?> type = Class.forName(name, false, getClass().getClassLoader());
        if (!SignatureCheck.visible(type)) {
          continue;
        }
        checked++;
        for (String leak : SignatureCheck.leaks(type, exported::contains)) {
          leaks.add(module.name() + ": " + leak);
        }
      }
    }
    assertThat(checked).as("public types checked").isGreaterThan(50);
    assertThat(leaks).as("internal types in public signatures:%n  %s",
        String.join("\n  ", leaks)).isEmpty();
  }

  @Test
  void theCheckFindsALeakInEveryPlaceASignatureCanHaveOne() {
    List<String> leaks = SignatureCheck.leaks(Leaky.class,
        "dev.ledger.testing.api.fixture"::equals);
    String hidden = "dev.ledger.testing.api.fixture.hidden.Hidden is in package "
        + "dev.ledger.testing.api.fixture.hidden, which no published module exports to everyone";
    List<String> expected = List.of(
        "Leaky extends: " + hidden,
        "Leaky extends: dev.ledger.testing.api.fixture.Base is not public",
        "Leaky implements: " + hidden,
        "Leaky type parameter T: " + hidden,
        "Leaky.field: " + hidden,
        "Leaky.inherited: " + hidden,
        "Leaky.returns() returns: " + hidden,
        "Leaky.wildcard(Map) parameter 0: " + hidden,
        "Leaky.throwsIt() throws: " + hidden,
        "Leaky.bound() returns: " + hidden,
        "Leaky.bound() type parameter U: " + hidden,
        "Leaky.notPublic() returns: dev.ledger.testing.api.fixture.PackagePrivate is not public",
        "Leaky.<init>(Hidden) parameter 0: " + hidden);
    for (String e : expected) {
      assertThat(leaks).as("leaks found:%n  %s", String.join("\n  ", leaks))
          .anySatisfy(leak -> assertThat(leak).startsWith("dev.ledger.testing.api.fixture."
              + e.substring(0, e.indexOf(':'))).endsWith(e.substring(e.indexOf(':'))));
    }
    assertThat(leaks).noneMatch(l -> l.contains("privateField") || l.contains("packagePrivate"));
    assertThat(SignatureCheck.leaks(Clean.class, "dev.ledger.testing.api.fixture"::equals))
        .isEmpty();
    assertThat(Modifier.isFinal(Clean.class.getModifiers())).isTrue();
  }

  @Test
  void thePackagesOfThePublishedModulesFormNoCycle() {
    PackageGraph graph = new PackageGraph();
    for (PublishedModules.Module module : MODULES) {
      for (String name : module.classNames()) {
        graph.add(name.substring(0, name.lastIndexOf('.')), module.classFile(name));
      }
    }
    Map<String, Set<String>> edges = graph.edges();
    assertThat(edges).containsKey("dev.ledger.core.spi");
    assertThat(graph.cycles()).as("package dependencies:%n%s", edges.entrySet().stream()
        .map(e -> "  " + e.getKey() + " -> " + e.getValue())
        .collect(Collectors.joining("\n"))).isEmpty();
  }

  @Test
  void theCycleCheckFindsACycle() {
    PackageGraph graph = new PackageGraph();
    graph.edges().put("a", new TreeSet<>(Set.of("b")));
    graph.edges().put("b", new TreeSet<>(Set.of("c")));
    graph.edges().put("c", new TreeSet<>(Set.of("a", "d")));
    graph.edges().put("d", new TreeSet<>());
    assertThat(graph.cycles()).containsExactly(Set.of("a", "b", "c"));
  }
}
