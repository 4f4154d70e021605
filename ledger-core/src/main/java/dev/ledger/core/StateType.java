package dev.ledger.core;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.google.common.base.Preconditions;
import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;

/**
 * How a ledger's stored state becomes a Java value: the type to map it to, and the
 * <em>state version</em> this program writes, with the upcasters that bring states written
 * with older versions up to it.
 *
 * <p><b>Versions.</b> Every commit records the state version its state was written with (in
 * the journal record and the checkpoint). A {@code StateType} starts at version 0, the version
 * of every state written without a declaration, including every state written before versions
 * were recorded. Each {@link #withUpcaster} adds one version: the upcaster takes a state tree
 * of version {@code n} to version {@code n + 1}. Loading a state of an older version runs the
 * upcasters from its version up, in order, on a private copy of the tree, then maps the tree to
 * the type; the stored files are not rewritten (the next commit writes the current version).
 * A state of a newer version than declared, written by a newer program, is refused with
 * {@link StateMappingException} rather than misread.
 *
 * <pre>{@code
 * // version 1 renamed "name" to "title"
 * static final StateType<Plan> PLAN = StateType.of(Plan.class).withUpcaster(0, tree -> {
 *   ObjectNode plan = (ObjectNode) tree;
 *   plan.set("title", plan.remove("name"));
 *   return plan;
 * });
 * Ledger<Plan> ledger = store.ledger("run-1", PLAN);
 * }</pre>
 *
 * <p>Fields added or removed need no upcaster: a field missing from a stored state maps to its
 * Java default (null, 0, false; a record's constructor can replace it), and a stored field the
 * class no longer has is ignored by the default mapper (see
 * {@link LedgerOptions#withMapper}). An upcaster that changes nothing still counts: it marks
 * states that programs declaring an older version must refuse.
 *
 * <p>Immutable and thread-safe; upcasters must be pure functions. Not a record: it holds
 * functions, which have no value equality.
 *
 * @param <S> the state type
 */
public final class StateType<S> {
  private final Type type;
  private final List<UnaryOperator<JsonNode>> upcasters;

  private StateType(Type type, List<UnaryOperator<JsonNode>> upcasters) {
    this.type = type;
    this.upcasters = List.copyOf(upcasters);
  }

  /**
   * States mapped to {@code type} (a Jackson-mapped class, a record, or {@code JsonNode}), at
   * version 0.
   *
   * @param type the class
   * @param <S> the state type
   * @return the state type
   * @throws NullPointerException if {@code type} is null
   */
  public static <S> StateType<S> of(Class<S> type) {
    return new StateType<>(Preconditions.checkNotNull(type, "type"), List.of());
  }

  /**
   * States mapped to a generic type, such as {@code new TypeReference<Map<String, Task>>() {}},
   * at version 0.
   *
   * @param type the type reference
   * @param <S> the state type
   * @return the state type
   * @throws NullPointerException if {@code type} is null
   */
  public static <S> StateType<S> of(TypeReference<S> type) {
    Preconditions.checkNotNull(type, "type");
    return new StateType<>(type.getType(), List.of());
  }

  /**
   * This state type one version newer: {@code upcaster} takes a state tree written with version
   * {@code fromVersion} to version {@code fromVersion + 1}. It receives a private copy it may
   * change and return, and must return a tree.
   *
   * @param fromVersion the version the upcaster reads; must be {@link #version()}, so that
   *     upcasters are declared in order
   * @param upcaster the tree-to-tree function
   * @return a new state type at version {@code fromVersion + 1}
   * @throws IllegalArgumentException if {@code fromVersion} is not {@link #version()}
   * @throws NullPointerException if {@code upcaster} is null
   */
  public StateType<S> withUpcaster(int fromVersion, UnaryOperator<JsonNode> upcaster) {
    Preconditions.checkArgument(fromVersion == version(),
        "upcasters are declared in order: the next reads version %s, got %s", version(),
        fromVersion);
    Preconditions.checkNotNull(upcaster, "upcaster");
    List<UnaryOperator<JsonNode>> more = new ArrayList<>(upcasters);
    more.add(upcaster);
    return new StateType<>(type, more);
  }

  /**
   * The Java type states are mapped to.
   *
   * @return a {@code Class} or a parameterized type
   */
  public Type type() {
    return type;
  }

  /**
   * The state version this program writes: the number of upcasters.
   *
   * @return the version, from 0
   */
  public int version() {
    return upcasters.size();
  }

  /**
   * The upcasters, in order: the one at index {@code n} reads version {@code n}.
   *
   * @return an unmodifiable list
   */
  public List<UnaryOperator<JsonNode>> upcasters() {
    return upcasters;
  }

  /**
   * The type's name and version, as error messages show it.
   *
   * @return for example {@code com.example.Plan (state version 2)}
   */
  @Override
  public String toString() {
    return type.getTypeName() + " (state version " + version() + ")";
  }
}
