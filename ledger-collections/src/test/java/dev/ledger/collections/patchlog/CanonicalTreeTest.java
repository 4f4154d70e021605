package dev.ledger.collections.patchlog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ledger.core.LedgerOptions;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@link Json#canonicalTree} builds, from the serializer's tokens, the tree that
 * {@link Json#withoutNulls} makes of {@code valueToTree} of the documents' mapper without a
 * customizer: node for node (the JSON text and the node classes, since stored trees must
 * equal their re-read form); it declines (null) what it does not build, and reports a value
 * the serializer refuses as {@code valueToTree} does.
 */
class CanonicalTreeTest {
  private static final ObjectMapper MAPPER =
      PatchLogCollectionStore.documentMapper(LedgerOptions.defaults().mapper());
  private static final ObjectWriter WRITER =
      MAPPER.writer().without(SerializationFeature.WRAP_ROOT_VALUE);

  /**
   * A document with fields out of canonical order, nulls, nested values and numbers of every
   * form.
   *
   * @param zeta last in canonical order
   * @param alpha a string
   * @param nothing null, left out
   * @param count an int
   * @param big a long
   * @param huge a big integer
   * @param ratio a double
   * @param share a float
   * @param price a decimal
   * @param at an instant (an ISO-8601 string)
   * @param tags a list holding a null, kept
   * @param meta a map with a null value (left out) and unsorted keys
   * @param inner a nested record
   * @param flag a boolean
   */
  public record Doc(String zeta, String alpha, String nothing, int count, long big,
      BigInteger huge, double ratio, float share, BigDecimal price, Instant at,
      List<String> tags, Map<String, Object> meta, Inner inner, Boolean flag) {}

  /**
   * A nested record.
   *
   * @param b a long that fits an int
   * @param a a null
   */
  public record Inner(Long b, String a) {}

  /** A type the serializer refuses. */
  public static final class Refused {
    /**
     * Throws.
     *
     * @return never
     */
    public String getValue() {
      throw new IllegalStateException("no value");
    }
  }

  private static JsonNode throughMapper(Object value) {
    return Json.withoutNulls(MAPPER.valueToTree(value));
  }

  private static void assertSameTree(Object value) {
    JsonNode actual = Json.canonicalTree(MAPPER, WRITER, value);
    SameTrees.assertSameTree(actual, throughMapper(value));
  }

  @Test
  void aRecordIsBuiltAsTheMapperAndTheCopyBuildIt() {
    Map<String, Object> meta = new LinkedHashMap<>();
    meta.put("z", 1);
    meta.put("gone", null);
    meta.put("a", List.of(Map.of("y", 2L, "x", 3.25)));
    meta.put("long", 1L << 40);
    List<String> tags = new ArrayList<>(Arrays.asList("t", null, "\u00e9\"\n"));
    assertSameTree(new Doc("z", "a", null, 7, 1L << 40,
        new BigInteger("123456789012345678901234"), 0.1, 1.5f, new BigDecimal("1.250"),
        Instant.parse("2026-12-01T10:00:00Z"), tags, meta, new Inner(5L, null), true));
    assertSameTree(new Doc("", "", null, -1, Long.MIN_VALUE, BigInteger.valueOf(42), -0.0,
        Float.MIN_VALUE, BigDecimal.ZERO, Instant.EPOCH, List.of(), Map.of(), null, null));
    assertSameTree(List.of(1, 2L, "three", List.of()));
    assertSameTree(Map.of("b", 1, "a", 2));
    assertSameTree(12L);
    assertSameTree(Instant.EPOCH);
  }

  @Test
  void whatItDoesNotBuildIsLeftToTheMapper() {
    assertThat(Json.canonicalTree(MAPPER, WRITER, null)).isNull();
    // Binary travels as an embedded object in the tokens.
    assertThat(Json.canonicalTree(MAPPER, WRITER, Map.of("bytes", new byte[] {1, 2}))).isNull();
    Object deep = "leaf";
    for (int i = 0; i <= Json.PLAIN_DEPTH; i++) {
      deep = List.of(deep);
    }
    assertThat(Json.canonicalTree(MAPPER, WRITER, deep)).isNull();
    ObjectNode empty = Json.NODES.objectNode();
    assertThat(Json.canonicalTree(MAPPER, WRITER, Map.of("n", empty))).isEqualTo(
        throughMapper(Map.of("n", empty)));
  }

  @Test
  void aValueTheSerializerRefusesIsReportedAsValueToTreeReportsIt() {
    String expected;
    try {
      MAPPER.valueToTree(new Refused());
      throw new AssertionError("valueToTree mapped a refused value");
    } catch (IllegalArgumentException e) {
      expected = e.getMessage();
    }
    assertThatThrownBy(() -> Json.canonicalTree(MAPPER, WRITER, new Refused()))
        .isInstanceOf(IllegalArgumentException.class).hasMessage(expected);
  }
}
