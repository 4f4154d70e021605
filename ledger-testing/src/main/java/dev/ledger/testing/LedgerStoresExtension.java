package dev.ledger.testing;

import dev.ledger.artifacts.ArtifactStore;
import dev.ledger.artifacts.fs.FileArtifactStore;
import dev.ledger.artifacts.memory.InMemoryArtifactStore;
import dev.ledger.core.LedgerOptions;
import dev.ledger.core.LedgerStore;
import dev.ledger.core.fs.FileLedgerStore;
import dev.ledger.core.memory.InMemoryLedgerStore;
import dev.ledger.testing.base.MutableClock;
import java.lang.reflect.AnnotatedElement;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionConfigurationException;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.junit.platform.commons.support.AnnotationSupport;
import org.junit.platform.commons.support.HierarchyTraversalMode;
import org.junit.platform.commons.support.ReflectionSupport;

/**
 * A JUnit 5 extension that gives each test a {@link LedgerStore} and an {@link ArtifactStore}
 * (on files in a fresh temporary directory, or in memory) running on a {@link MutableClock}
 * the test controls, and closes them after the test, whether it passed or failed.
 *
 * <pre>{@code
 * @ExtendWith(LedgerStoresExtension.class)
 * class PlanServiceTest {
 *   @TestStore LedgerStore ledgers;                        // files, in a temp directory
 *   @TestStore(StoreKind.IN_MEMORY) ArtifactStore artifacts;
 *   @TestClock MutableClock clock;                         // the clock both stores use
 *
 *   @Test
 *   void retriesAfterAnHour() {
 *     clock.advance(Duration.ofHours(1));
 *     ...
 *   }
 *
 *   @Test
 *   void orByParameter(InMemoryLedgerStore ledgers, FileArtifactStore artifacts,
 *       MutableClock clock) { ... }
 * }
 * }</pre>
 *
 * <p><b>What a test can ask for.</b> Parameters of test methods, {@code @BeforeEach} and
 * {@code @AfterEach} methods of type {@link LedgerStore}, {@link ArtifactStore},
 * {@link FileLedgerStore}, {@link InMemoryLedgerStore}, {@link FileArtifactStore},
 * {@link InMemoryArtifactStore} or {@link MutableClock}; fields of those types annotated
 * with {@link TestStore} (stores) or {@link TestClock} (the clock), set before each
 * {@code @BeforeEach} method. The kind of store comes from {@link TestStore#value()}, or from
 * the declared type if it names an implementation; otherwise it is {@link StoreKind#FILE}.
 *
 * <p><b>What the test gets.</b> Per test: one clock, starting at {@link #START}, and at most
 * one store of each type and kind, opened when first asked for (so every request for a file
 * ledger store within a test gets the same store). The stores run with
 * {@link LedgerOptions#defaults()} and the test's clock, changed by {@link #withOptions} if
 * the extension is registered with {@code @RegisterExtension}. File stores (ledger and
 * artifacts alike) share the base directory {@code store} inside a temporary directory of
 * their own.
 *
 * <p><b>After the test</b>, failed or not, JUnit closes every store it opened (newest first)
 * and deletes the temporary directory; a store that fails to close fails the test. A
 * parameter of a {@code @BeforeAll} method gets stores that live until the class's tests
 * are done.
 *
 * <p>Immutable and thread-safe; the per-test state lives in JUnit's extension context.
 */
public final class LedgerStoresExtension implements BeforeEachCallback, ParameterResolver {
  /** Where each test's clock starts. */
  public static final Instant START = Instant.parse("2026-01-01T00:00:00Z");

  private static final ExtensionContext.Namespace NAMESPACE =
      ExtensionContext.Namespace.create(LedgerStoresExtension.class);

  private final UnaryOperator<LedgerOptions> customizer;

  /**
   * The extension with default options: what {@code @ExtendWith(LedgerStoresExtension.class)}
   * creates.
   */
  public LedgerStoresExtension() {
    this(UnaryOperator.identity());
  }

  private LedgerStoresExtension(UnaryOperator<LedgerOptions> customizer) {
    this.customizer = customizer;
  }

  /**
   * An extension whose stores run with options changed by {@code customizer}, for
   * registration in a field:
   * {@code @RegisterExtension static LedgerStoresExtension stores = new
   * LedgerStoresExtension().withOptions(o -> o.withCheckpointInterval(3));}
   *
   * @param customizer receives the defaults with the test's clock and returns the options to
   *     use; it must keep that clock
   * @return a new extension
   * @throws NullPointerException if {@code customizer} is null
   */
  public LedgerStoresExtension withOptions(UnaryOperator<LedgerOptions> customizer) {
    Objects.requireNonNull(customizer, "customizer");
    UnaryOperator<LedgerOptions> before = this.customizer;
    return new LedgerStoresExtension(options -> customizer.apply(before.apply(options)));
  }

  /**
   * Sets the test instance's fields annotated {@link TestStore} and {@link TestClock}.
   *
   * @param context the test's context
   * @throws ExtensionConfigurationException if such a field is static, final or of a type
   *     this extension does not provide
   * @throws IllegalAccessException if a field cannot be set (a module does not open the test
   *     package)
   */
  @Override
  public void beforeEach(ExtensionContext context) throws IllegalAccessException {
    TestStores stores = stores(context);
    for (Object instance : context.getRequiredTestInstances().getAllInstances()) {
      for (Field field : ReflectionSupport.findFields(instance.getClass(),
          f -> f.isAnnotationPresent(TestStore.class) || f.isAnnotationPresent(TestClock.class),
          HierarchyTraversalMode.TOP_DOWN)) {
        if (Modifier.isStatic(field.getModifiers()) || Modifier.isFinal(field.getModifiers())) {
          throw new ExtensionConfigurationException("@TestStore and @TestClock fields must be "
              + "neither static nor final: " + field);
        }
        Object value = field.isAnnotationPresent(TestClock.class)
            ? clockFor(field.getType(), field, stores)
            : storeFor(field.getType(), field, stores)
                .orElseThrow(() -> new ExtensionConfigurationException("@TestStore field of "
                    + "a type that is not a ledger or artifact store: " + field));
        ReflectionSupport.makeAccessible(field).set(instance, value);
      }
    }
  }

  private static Object clockFor(Class<?> type, Field field, TestStores stores) {
    if (type != MutableClock.class) {
      throw new ExtensionConfigurationException("@TestClock field must be a MutableClock: "
          + field);
    }
    return stores.clock();
  }

  /**
   * Whether the parameter is a store or a clock this extension provides.
   *
   * @param parameter the parameter to resolve
   * @param context the test's context
   * @return true for the store types and {@link MutableClock}
   */
  @Override
  public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    Class<?> type = parameter.getParameter().getType();
    return type == MutableClock.class || isStoreType(type);
  }

  /**
   * The test's store or clock for the parameter, opening the store if it is the first
   * request.
   *
   * @param parameter the parameter to resolve
   * @param context the test's context
   * @return the store or clock
   * @throws ParameterResolutionException if {@link TestStore} asks for a kind the declared
   *     implementation type is not
   */
  @Override
  public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
    Class<?> type = parameter.getParameter().getType();
    TestStores stores = stores(context);
    if (type == MutableClock.class) {
      return stores.clock();
    }
    try {
      return storeFor(type, parameter.getParameter(), stores).orElseThrow();
    } catch (ExtensionConfigurationException e) {
      throw new ParameterResolutionException(e.getMessage(), e);
    }
  }

  private static boolean isStoreType(Class<?> type) {
    return type == LedgerStore.class || type == FileLedgerStore.class
        || type == InMemoryLedgerStore.class || type == ArtifactStore.class
        || type == FileArtifactStore.class || type == InMemoryArtifactStore.class;
  }

  private static Optional<Object> storeFor(Class<?> type, AnnotatedElement element,
      TestStores stores) {
    if (!isStoreType(type)) {
      return Optional.empty();
    }
    Optional<StoreKind> asked = AnnotationSupport.findAnnotation(element, TestStore.class)
        .map(TestStore::value);
    StoreKind implied = type == FileLedgerStore.class || type == FileArtifactStore.class
        ? StoreKind.FILE
        : type == InMemoryLedgerStore.class || type == InMemoryArtifactStore.class
            ? StoreKind.IN_MEMORY : null;
    if (implied != null && asked.isPresent() && asked.get() != implied) {
      throw new ExtensionConfigurationException(element + ": a " + type.getSimpleName()
          + " cannot be a " + asked.get() + " store");
    }
    StoreKind kind = implied != null ? implied : asked.orElse(StoreKind.FILE);
    boolean ledger = LedgerStore.class.isAssignableFrom(type);
    return Optional.of(ledger ? stores.ledgerStore(kind) : stores.artifactStore(kind));
  }

  private TestStores stores(ExtensionContext context) {
    return context.getStore(NAMESPACE).getOrComputeIfAbsent(TestStores.class, k -> {
      MutableClock clock = new MutableClock(START);
      LedgerOptions options = customizer.apply(LedgerOptions.defaults().withClock(clock));
      if (options == null || options.clock() != clock) {
        throw new ExtensionConfigurationException("withOptions must keep the test's clock "
            + "(the MutableClock the test gets), not " + (options == null ? null
            : options.clock()));
      }
      return new TestStores(clock, options);
    }, TestStores.class);
  }
}
