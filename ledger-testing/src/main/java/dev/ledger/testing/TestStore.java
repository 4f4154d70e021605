package dev.ledger.testing;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Asks {@link LedgerStoresExtension} for a store: on a field (of type {@code LedgerStore},
 * {@code ArtifactStore} or one of their built-in implementations), it marks the field to be
 * set before each test; on a test or lifecycle method parameter, where the type alone is
 * enough, it chooses the kind.
 *
 * <p>Within one test, every request for the same type and kind gets the same store.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.FIELD, ElementType.PARAMETER})
public @interface TestStore {
  /**
   * The kind of store.
   *
   * @return {@link StoreKind#FILE} unless chosen otherwise; a parameter or field whose type
   *     is an implementation ({@code InMemoryLedgerStore}, say) must not ask for another kind
   */
  StoreKind value() default StoreKind.FILE;
}
