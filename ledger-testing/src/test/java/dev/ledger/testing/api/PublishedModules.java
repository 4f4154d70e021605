package dev.ledger.testing.api;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.module.FindException;
import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.lang.module.ModuleReader;
import java.lang.module.ModuleReference;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The library's published modules, as the test class path holds them: every entry with a
 * {@code module-info.class} naming a {@code dev.ledger.*} module (an explicit module, not an
 * automatic one). Tests run on the class path, so the descriptors are read from the files
 * ({@link ModuleFinder#of}), not from the module layer.
 */
final class PublishedModules {
  /** One module: its descriptor and its class files. */
  record Module(ModuleDescriptor descriptor, ModuleReference reference) {
    String name() {
      return descriptor.name();
    }

    /** Packages exported to everyone (no {@code to}). */
    Set<String> unqualifiedExports() {
      return descriptor.exports().stream().filter(e -> !e.isQualified())
          .map(ModuleDescriptor.Exports::source).collect(Collectors.toCollection(TreeSet::new));
    }

    /** Names of every class in the module, {@code module-info} excluded, sorted. */
    List<String> classNames() {
      try (ModuleReader reader = reference.open(); Stream<String> resources = reader.list()) {
        return resources.filter(r -> r.endsWith(".class") && !r.endsWith("module-info.class"))
            .map(r -> r.substring(0, r.length() - ".class".length()).replace('/', '.'))
            .sorted().toList();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    /** The bytes of one class file of the module. */
    byte[] classFile(String className) {
      try (ModuleReader reader = reference.open()) {
        try (var in = reader.open(className.replace('.', '/') + ".class").orElseThrow()) {
          return in.readAllBytes();
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }

  private PublishedModules() {}

  /** Every {@code dev.ledger.*} explicit module on the test class path, by name. */
  static List<Module> onClassPath() {
    String path = System.getProperty("surefire.test.class.path");
    if (path == null || path.isBlank()) {
      path = System.getProperty("java.class.path");
    }
    List<Module> modules = new ArrayList<>();
    for (String entry : path.split(File.pathSeparator)) {
      if (entry.isBlank()) {
        continue;
      }
      Path p = Path.of(entry);
      // A directory is an exploded module only with its descriptor (test-classes has none).
      if (!Files.isRegularFile(p) && !Files.isRegularFile(p.resolve("module-info.class"))) {
        continue;
      }
      Set<ModuleReference> found;
      try {
        found = ModuleFinder.of(p).findAll();
      } catch (FindException e) {
        continue; // a jar that is no module at all (no valid automatic name): not ours
      }
      for (ModuleReference ref : found) {
        ModuleDescriptor d = ref.descriptor();
        if (d.name().startsWith("dev.ledger.") && !d.isAutomatic()) {
          modules.add(new Module(d, ref));
        }
      }
    }
    modules.sort(Comparator.comparing(Module::name));
    return modules;
  }
}
