package dev.ledger.core.internal.journal;

import static dev.ledger.core.internal.journal.RecordLines.frame;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ledger.core.Event;
import dev.ledger.core.internal.json.LedgerJson;
import dev.ledger.testing.base.SeedExtension;
import dev.ledger.testing.base.TestSeed;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@link PatchRecordScanner} against the streaming read it stands in for
 * ({@link PatchRecordReader#read(byte[], int, int, List)}): on seeded random records and on
 * damaged copies of them, whatever the scanner accepts the streaming read accepts to the same
 * record (node kinds included), and what the streaming read refuses the scanner declines.
 * The seed is a {@link TestSeed}: printed on failure, replayed with {@code -Dledger.seed}.
 */
@ExtendWith(SeedExtension.class)
class PatchRecordScannerTest {
  private static final String[] NAMES = {"a", "b", "attempt", "docs", "d", "o", "next",
      "[\\\"rollout-1\\\"]", "\\u00e9t\\u00e9", "caf\u00e9", "line\\nbreak", "", "x\\\"y", "q"};
  private static final String[] STRINGS = {"", "plain", "esc\\\"aped\\\\", "\\u0041\\u00e9",
      "\u00e9\u4e2d", "\\ud83d\\ude00", "tab\\there", "\\/slash", "rollout-000096633"};

  @Test
  void randomRecordsReadTheSameAsTheStreamingRead(TestSeed seed) {
    Random random = seed.random();
    int accepted = 0;
    for (int i = 0; i < 3_000; i++) {
      boolean odd = random.nextInt(4) == 0;
      String body = body(random, odd);
      byte[] line = frame(body);
      CommitRecord fast = scan(line);
      CommitRecord slow = streamOrNull(line);
      if (!odd) {
        assertThat(slow).as("streaming read of %s", body).isNotNull();
        assertThat(fast).as("scan of %s", body).isNotNull();
      } else if (slow == null) {
        assertThat(fast).as("scan of %s, which the streaming read refuses", body).isNull();
      }
      if (fast != null) {
        accepted++;
        assertSame(fast, slow, body);
      }
    }
    assertThat(accepted).isGreaterThan(2_000);
  }

  @Test
  void damagedRecordsAreDeclinedWhereTheStreamingReadRefusesThem(TestSeed seed) {
    Random random = seed.random();
    byte[] junk = "{}[]\",:0-9.eE tfnul\\ax\u00e9".getBytes(StandardCharsets.UTF_8);
    for (int i = 0; i < 5_000; i++) {
      byte[] body = body(random, random.nextBoolean()).getBytes(StandardCharsets.UTF_8);
      int damage = 1 + random.nextInt(3);
      for (int d = 0; d < damage; d++) {
        int at = random.nextInt(body.length);
        switch (random.nextInt(3)) {
          case 0 -> body[at] = junk[random.nextInt(junk.length)];
          case 1 -> body = cut(body, at, 1 + random.nextInt(Math.min(8, body.length - at)));
          default -> body = insert(body, at, junk[random.nextInt(junk.length)]);
        }
        if (body.length == 0) {
          body = "x".getBytes(StandardCharsets.UTF_8);
        }
      }
      String text = new String(body, StandardCharsets.ISO_8859_1);
      byte[] line = frameBytes(body);
      CommitRecord fast = scan(line);
      CommitRecord slow = streamOrNull(line);
      if (slow == null) {
        assertThat(fast).as("scan of %s, which the streaming read refuses", text).isNull();
      } else if (fast != null) {
        assertSame(fast, slow, text);
      }
    }
  }

  @Test
  void whatOnlyTheParserReadsOrRefusesIsLeftToIt() {
    String head = "{\"committedAt\":\"2026-01-01T00:00:00Z\",\"events\":[],\"firstSequence\":1,"
        + "\"format\":2,\"revision\":2,\"root\":\"r\",\"stateVersion\":0,\"patch\":";
    for (String patch : List.of("{\"a\":1.5}", "{\"a\":12345678901234567890}",
        "{\"a\":1,\"a\":1}", "{\"a\":1e3}", "{\"a\":1234567890123456789}",
        "[".repeat(LedgerJson.MAX_NESTING_DEPTH) + "]".repeat(LedgerJson.MAX_NESTING_DEPTH))) {
      assertThat(scan(frame(head + patch + "}"))).as(patch).isNull();
    }
    assertThat(scan(frame(head + "{\"a\":123456789012345678}}")).patch().get("a").longValue())
        .isEqualTo(123456789012345678L);
    String bigEvent = "{\"committedAt\":\"2026-01-01T00:00:00Z\",\"events\":[{\"id\":\"i\","
        + "\"payload\":\"" + "x".repeat(1_000) + "\"}],\"firstSequence\":1,\"format\":2,"
        + "\"revision\":2,\"root\":\"r\",\"stateVersion\":0,\"patch\":{}}";
    assertThat(scan(frame(bigEvent))).isNull();
    assertThat(stream(frame(bigEvent)).nextSequence()).isEqualTo(2);
  }

  private static CommitRecord scan(byte[] line) {
    int body = JournalLine.checkFrame(line, line.length - 1);
    return PatchRecordScanner.read(line, JournalLine.PREFIX, body);
  }

  private static CommitRecord stream(byte[] line) {
    int body = JournalLine.checkFrame(line, line.length - 1);
    try {
      return PatchRecordReader.read(line, JournalLine.PREFIX, body, null);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /** The streaming read's record, or null where it declines or refuses the record. */
  private static CommitRecord streamOrNull(byte[] line) {
    try {
      return stream(line);
    } catch (RuntimeException e) {
      return null;
    }
  }

  private static void assertSame(CommitRecord fast, CommitRecord slow, String body) {
    assertThat(fast.format()).as(body).isEqualTo(slow.format());
    assertThat(fast.root()).as(body).isEqualTo(slow.root());
    assertThat(fast.revision()).as(body).isEqualTo(slow.revision());
    assertThat(fast.committedAt()).as(body).isEqualTo(slow.committedAt());
    assertThat(fast.firstSequence()).as(body).isEqualTo(slow.firstSequence());
    assertThat(fast.commandId()).as(body).isEqualTo(slow.commandId());
    assertThat(fast.commandDigest()).as(body).isEqualTo(slow.commandDigest());
    assertThat(fast.stateVersion()).as(body).isEqualTo(slow.stateVersion());
    assertSameTree(fast.state(), slow.state(), body);
    assertSameTree(fast.patch(), slow.patch(), body);
    assertThat(fast.events()).as(body).hasSameSizeAs(slow.events());
    for (int i = 0; i < fast.events().size(); i++) {
      Event f = fast.events().get(i);
      Event s = slow.events().get(i);
      assertThat(List.of(f.id(), f.rootId(), f.sequence(), f.revision(), f.type(),
          f.occurredAt(), f.payload())).as(body).isEqualTo(List.of(s.id(), s.rootId(),
          s.sequence(), s.revision(), s.type(), s.occurredAt(), s.payload()));
    }
  }

  /** Equal trees with the same node class at every place. */
  private static void assertSameTree(JsonNode fast, JsonNode slow, String body) {
    if (fast == null || slow == null) {
      assertThat(fast).as(body).isEqualTo(slow);
      return;
    }
    assertThat(fast.getClass()).as(body).isEqualTo(slow.getClass());
    assertThat(fast).as(body).isEqualTo(slow);
    assertThat(fast.size()).as(body).isEqualTo(slow.size());
    if (fast.isObject()) {
      assertThat(List.copyOf(iterable(fast.fieldNames())))
          .as(body).isEqualTo(List.copyOf(iterable(slow.fieldNames())));
      fast.fieldNames().forEachRemaining(n -> assertSameTree(fast.get(n), slow.get(n), body));
    } else if (fast.isArray()) {
      for (int i = 0; i < fast.size(); i++) {
        assertSameTree(fast.get(i), slow.get(i), body);
      }
    }
  }

  private static <T> List<T> iterable(java.util.Iterator<T> it) {
    List<T> out = new ArrayList<>();
    it.forEachRemaining(out::add);
    return out;
  }

  /** A record body; {@code odd} adds what only the parser reads, or refuses. */
  private static String body(Random r, boolean odd) {
    List<String> members = new ArrayList<>();
    long revision = 1 + r.nextInt(1_000_000);
    int format = 2 + r.nextInt(2);
    if (r.nextBoolean()) {
      members.add("\"command\":{\"digest\":\"" + STRINGS[r.nextInt(STRINGS.length)]
          + "\",\"id\":\"cmd-" + r.nextInt(100) + "\"}");
    }
    members.add("\"committedAt\":\"2026-01-0" + (1 + r.nextInt(9)) + "T01:02:03."
        + r.nextInt(1_000_000) + "Z\"");
    StringBuilder events = new StringBuilder("\"events\":[");
    int count = r.nextInt(4);
    for (int i = 0; i < count; i++) {
      events.append(i == 0 ? "" : ",").append("{\"id\":\"e").append(i)
          .append("\",\"payload\":").append(value(r, 3, odd)).append(",\"sequence\":")
          .append(i + 1).append(",\"type\":\"t\"}");
    }
    members.add(events.append(']').toString());
    members.add("\"firstSequence\":" + (1 + r.nextInt(1000)));
    members.add("\"format\":" + format);
    if (format == 3 && revision > 2 && r.nextBoolean()) {
      members.add("\"forcedThrough\":" + r.nextInt((int) revision - 1));
    }
    members.add((r.nextInt(5) == 0 ? "\"state\":" : "\"patch\":") + object(r, 0, odd));
    members.add("\"revision\":" + revision);
    members.add("\"root\":\"" + STRINGS[r.nextInt(STRINGS.length)] + "\"");
    members.add("\"stateVersion\":" + r.nextInt(5));
    if (r.nextInt(4) == 0) {
      java.util.Collections.shuffle(members, r);
    }
    String space = odd && r.nextBoolean() ? " " : "";
    return "{" + space + String.join("," + space, members) + "}";
  }

  private static String object(Random r, int depth, boolean odd) {
    StringBuilder out = new StringBuilder("{");
    int n = depth > 3 ? 0 : r.nextInt(5);
    List<String> used = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      String name = NAMES[r.nextInt(NAMES.length)];
      if (used.contains(name) && !(odd && r.nextInt(3) == 0)) {
        continue;
      }
      used.add(name);
      out.append(out.length() > 1 ? "," : "").append('"').append(name).append("\":")
          .append(value(r, depth + 1, odd));
    }
    return out.append('}').toString();
  }

  private static String value(Random r, int depth, boolean odd) {
    int kind = r.nextInt(depth > 3 ? 6 : 8);
    return switch (kind) {
      case 0 -> "\"" + STRINGS[r.nextInt(STRINGS.length)] + "\"";
      case 1 -> Long.toString(integer(r));
      case 2 -> r.nextBoolean() ? "true" : "false";
      case 3 -> "null";
      case 4 -> odd ? oddNumber(r) : Integer.toString(r.nextInt());
      case 5 -> "\"" + "s".repeat(r.nextInt(3)) + "\"";
      case 6 -> object(r, depth, odd);
      default -> {
        StringBuilder out = new StringBuilder("[");
        int n = r.nextInt(4);
        for (int i = 0; i < n; i++) {
          out.append(i == 0 ? "" : ",").append(value(r, depth + 1, odd));
        }
        yield out.append(']').toString();
      }
    };
  }

  private static long integer(Random r) {
    return switch (r.nextInt(5)) {
      case 0 -> r.nextInt(100) - 50;
      case 1 -> Integer.MAX_VALUE + (long) r.nextInt(3) - 1;
      case 2 -> Integer.MIN_VALUE + (long) r.nextInt(3) - 1;
      case 3 -> r.nextLong() % 100_000_000_000_000_000L; // at most 18 characters
      default -> r.nextLong() % 100_000_000_000L;
    };
  }

  private static String oddNumber(Random r) {
    return switch (r.nextInt(4)) {
      case 0 -> "1.5";
      case 1 -> "-2e10";
      case 2 -> Long.toString(r.nextLong());
      default -> "123456789012345678901234";
    };
  }

  private static byte[] cut(byte[] b, int at, int n) {
    byte[] out = new byte[b.length - n];
    System.arraycopy(b, 0, out, 0, at);
    System.arraycopy(b, at + n, out, at, b.length - at - n);
    return out;
  }

  private static byte[] insert(byte[] b, int at, byte c) {
    byte[] out = new byte[b.length + 1];
    System.arraycopy(b, 0, out, 0, at);
    out[at] = c;
    System.arraycopy(b, at, out, at + 1, b.length - at);
    return out;
  }

  private static byte[] frameBytes(byte[] body) {
    return RecordLines.frame(new String(body, StandardCharsets.UTF_8));
  }
}
