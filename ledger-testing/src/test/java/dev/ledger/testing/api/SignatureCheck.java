package dev.ledger.testing.api;

import java.lang.reflect.Constructor;
import java.lang.reflect.Executable;
import java.lang.reflect.Field;
import java.lang.reflect.GenericArrayType;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.lang.reflect.TypeVariable;
import java.lang.reflect.WildcardType;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;

/**
 * Finds the library types a class's API names that a user of the published modules could not
 * name: a {@code dev.ledger.*} type outside every package exported to everyone, or a type
 * that is not public. Looks at everything a caller or a subclass sees: superclass,
 * interfaces, type parameter bounds, public and protected fields, methods (return type,
 * parameters, declared exceptions, type parameters) and constructors, through generic
 * arguments, wildcard and type-variable bounds and array components.
 */
final class SignatureCheck {
  private static final String LIBRARY = "dev.ledger.";

  private final Predicate<String> exportedPackage;
  private final List<String> leaks = new ArrayList<>();

  private SignatureCheck(Predicate<String> exportedPackage) {
    this.exportedPackage = exportedPackage;
  }

  /**
   * The leaks of {@code type}'s API, each naming the member and the type it names.
   *
   * @param exportedPackage whether a package is exported to everyone by a published module
   */
  static List<String> leaks(Class<?> type, Predicate<String> exportedPackage) {
    SignatureCheck check = new SignatureCheck(exportedPackage);
    check.checkClass(type);
    return check.leaks;
  }

  /** Whether a caller outside the library sees {@code type} at all (public, nested too). */
  static boolean visible(Class<?> type) {
    for (Class<?> c = type; c != null; c = c.getDeclaringClass()) {
      int m = c.getModifiers();
      boolean nested = c.getDeclaringClass() != null;
      if (!(Modifier.isPublic(m) || (nested && Modifier.isProtected(m)))) {
        return false;
      }
    }
    return !type.isSynthetic() && !type.isAnonymousClass() && !type.isLocalClass();
  }

  private void checkClass(Class<?> type) {
    String where = type.getName();
    if (type.getGenericSuperclass() != null) {
      check(where + " extends", type.getGenericSuperclass());
    }
    for (Type i : type.getGenericInterfaces()) {
      check(where + " implements", i);
    }
    for (TypeVariable<?> v : type.getTypeParameters()) {
      for (Type bound : v.getBounds()) {
        check(where + " type parameter " + v.getName(), bound);
      }
    }
    // A final class's protected members are out of reach, as are those of an enum.
    boolean subclassable = !Modifier.isFinal(type.getModifiers()) && !type.isEnum();
    for (Field f : type.getDeclaredFields()) {
      if (seen(f.getModifiers(), subclassable) && !f.isSynthetic()) {
        check(where + "." + f.getName(), f.getGenericType());
      }
    }
    for (Method m : type.getDeclaredMethods()) {
      if (seen(m.getModifiers(), subclassable) && !m.isSynthetic() && !m.isBridge()) {
        String name = where + "." + m.getName() + signature(m);
        check(name + " returns", m.getGenericReturnType());
        checkExecutable(name, m);
      }
    }
    for (Constructor<?> c : type.getDeclaredConstructors()) {
      if (seen(c.getModifiers(), subclassable) && !c.isSynthetic()) {
        checkExecutable(where + ".<init>" + signature(c), c);
      }
    }
  }

  private static boolean seen(int modifiers, boolean subclassable) {
    return Modifier.isPublic(modifiers) || (subclassable && Modifier.isProtected(modifiers));
  }

  private void checkExecutable(String name, Executable e) {
    Type[] parameters = e.getGenericParameterTypes();
    for (int i = 0; i < parameters.length; i++) {
      check(name + " parameter " + i, parameters[i]);
    }
    for (Type t : e.getGenericExceptionTypes()) {
      check(name + " throws", t);
    }
    for (TypeVariable<?> v : e.getTypeParameters()) {
      for (Type bound : v.getBounds()) {
        check(name + " type parameter " + v.getName(), bound);
      }
    }
  }

  private void check(String where, Type type) {
    walk(where, type, new HashSet<>());
  }

  private void walk(String where, Type type, Set<TypeVariable<?>> seenVariables) {
    if (type instanceof Class<?> c) {
      while (c.isArray()) {
        c = c.getComponentType();
      }
      if (c.isPrimitive() || !c.getName().startsWith(LIBRARY)) {
        return;
      }
      Class<?> top = c;
      while (top.getDeclaringClass() != null) {
        top = top.getDeclaringClass();
      }
      if (!exportedPackage.test(top.getPackageName())) {
        leaks.add(where + ": " + c.getName() + " is in package " + top.getPackageName()
            + ", which no published module exports to everyone");
      } else if (!visible(c)) {
        leaks.add(where + ": " + c.getName() + " is not public");
      }
    } else if (type instanceof ParameterizedType p) {
      walk(where, p.getRawType(), seenVariables);
      if (p.getOwnerType() != null) {
        walk(where, p.getOwnerType(), seenVariables);
      }
      for (Type a : p.getActualTypeArguments()) {
        walk(where, a, seenVariables);
      }
    } else if (type instanceof WildcardType w) {
      for (Type b : w.getUpperBounds()) {
        walk(where, b, seenVariables);
      }
      for (Type b : w.getLowerBounds()) {
        walk(where, b, seenVariables);
      }
    } else if (type instanceof TypeVariable<?> v) {
      if (seenVariables.add(v)) { // <T extends Comparable<T>> refers to itself
        for (Type b : v.getBounds()) {
          walk(where, b, seenVariables);
        }
      }
    } else if (type instanceof GenericArrayType g) {
      walk(where, g.getGenericComponentType(), seenVariables);
    }
  }

  private static String signature(Executable e) {
    return Arrays.stream(e.getParameterTypes()).map(Class::getSimpleName)
        .collect(java.util.stream.Collectors.joining(", ", "(", ")"));
  }
}
