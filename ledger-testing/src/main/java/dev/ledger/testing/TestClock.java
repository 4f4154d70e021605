package dev.ledger.testing;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a field of type {@link dev.ledger.testing.base.MutableClock} that
 * {@link LedgerStoresExtension} sets before each test to the clock every store of the test
 * runs on. (A parameter of type {@code MutableClock} needs no annotation.)
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.FIELD)
public @interface TestClock {}
