package dev.ledger.core.internal.journal;

import static dev.ledger.core.internal.journal.RecordLines.frame;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.ledger.core.Event;
import dev.ledger.testing.base.SeedExtension;
import dev.ledger.testing.base.TestSeed;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Random;
import java.util.function.BiFunction;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(SeedExtension.class)
class EventArrayScannerTest {
  private static final int SCALE = Integer.getInteger("ledger.torture.scale", 1);
  private static final String AT = "2026-01-01T00:00:00.5Z";

  /** A record body of the events in {@code events} (JSON text of the array's members). */
  private static String body(String events, boolean command) {
    return "{" + (command ? "\"command\":{\"digest\":\"" + "f".repeat(64) + "\",\"id\":\"cmd_"
        + "0".repeat(64) + "\"}," : "") + "\"committedAt\":\"" + AT + "\",\"events\":["
        + events + "],\"firstSequence\":1,\"format\":2,\"revision\":1,\"root\":\"r\","
        + "\"state\":{\"a\":[1,{\"b\":\"c\"}]},\"stateVersion\":0}";
  }

  private static String event(long sequence, String payload) {
    return "{\"id\":\"i" + sequence + "\",\"occurredAt\":\"" + AT + "\",\"payload\":" + payload
        + ",\"sequence\":" + sequence + ",\"type\":\"t\"}";
  }

  private static String scannedBody(String payload) {
    return body(event(1, payload), false);
  }

  /** What a decoder answers for a line: its record, or the type and message it throws. */
  private static Object answer(BiFunction<byte[], Integer, CommitRecord> decoder, byte[] line) {
    try {
      return decoder.apply(line, line.length - 1);
    } catch (RuntimeException e) {
      return e.getClass().getName() + ": " + e.getMessage();
    }
  }

  /** Verify's decoding as it was before the scan: the whole line through its own reader. */
  private static CommitRecord unscannedVerifyDecode(byte[] line, int length) {
    int bodyLength = JournalLine.checkFrame(line, length);
    try {
      return PayloadSkippingReader.read(line, JournalLine.PREFIX, bodyLength);
    } catch (IOException | IllegalArgumentException e) {
      throw new JournalLine.InvalidRecordException("checksum holds but the record is invalid: "
          + e.getMessage());
    }
  }

  /**
   * Both readers built on the scan answer {@code body} as they did without it: the replay's
   * as the full decode (the same events, or the same failure), verify's as its own reader of
   * the whole line (the same events without payloads, the same shell and state, or the same
   * failure).
   */
  private static void sameAsTheFullDecode(String body) {
    byte[] line = frame(body);
    Object full = answer(JournalLine::decode, line);
    Object events = answer(EventRecordReader::decode, line);
    Object verify = answer(JournalLine::decodeWithoutPayloads, line);
    assertThat(verify).as(body).isInstanceOf(full instanceof CommitRecord ? CommitRecord.class
        : String.class);
    if (!(full instanceof CommitRecord record)) {
      assertThat(events).as(body).isEqualTo(full);
      assertThat(verify).as(body).isEqualTo(answer(
          EventArrayScannerTest::unscannedVerifyDecode, line));
      return;
    }
    assertThat(events).as(body).isInstanceOf(CommitRecord.class);
    assertThat(((CommitRecord) events).events()).as(body).isEqualTo(record.events());
    assertThat(verify).as(body).isInstanceOf(CommitRecord.class);
    CommitRecord v = (CommitRecord) verify;
    assertThat(v.events()).as(body).hasSameSizeAs(record.events());
    for (int i = 0; i < record.events().size(); i++) {
      Event a = record.events().get(i);
      assertThat(v.events().get(i)).as(body).isEqualTo(new Event(a.id(), a.rootId(),
          a.sequence(), a.revision(), a.type(), a.occurredAt(),
          JsonNodeFactory.instance.nullNode(), a.commandId(), a.operationId()));
    }
    assertThat(v.state()).as(body).isEqualTo(record.state());
    assertThat(v.patch()).as(body).isEqualTo(record.patch());
    assertThat(v.root()).isEqualTo(record.root());
    assertThat(v.revision()).isEqualTo(record.revision());
    assertThat(v.committedAt()).isEqualTo(record.committedAt());
    assertThat(v.firstSequence()).isEqualTo(record.firstSequence());
    assertThat(v.commandId()).isEqualTo(record.commandId());
    assertThat(v.commandDigest()).isEqualTo(record.commandDigest());
    assertThat(v.format()).isEqualTo(record.format());
    assertThat(v.stateVersion()).isEqualTo(record.stateVersion());
  }

  private static boolean scans(String body) {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    return EventArrayScanner.scan(bytes, 0, bytes.length, true) != null;
  }

  @Test
  void payloadsInTheScannedShapeReadAsTheFullDecodeReadsThem() {
    List<String> payloads = List.of("{}", "[]", "\"\"", "0", "-1", "true", "false", "null",
        "{\"a\":[1,-1,2147483647,2147483648,-2147483648,-2147483649,999999999999999999,"
            + "-999999999999999999,0],\"b\":{\"c\":null,\"d\":true,\"e\":false,\"f\":\"\","
            + "\"g\":\"x y~!#$%&'()*+,-./:;<=>?@[]^_`{|}\"},\"h\":[[],{},[[null]]]}",
        "{\"attempt\":1,\"detail\":\"" + "lorem ipsum ".repeat(30) + "\",\"task\":\"t-1\"}");
    for (String payload : payloads) {
      String body = scannedBody(payload);
      assertThat(scans(body)).as(payload).isTrue();
      sameAsTheFullDecode(body);
    }
    String many = event(1, "{\"n\":1}") + "," + event(2, "[2]") + ","
        + event(3, "{\"n\":3}").replace("\"type\":\"t\"", "\"type\":\"u\",\"commandId\":\"c\","
        + "\"operationId\":\"o\"").replace("\"occurredAt\":\"" + AT + "\"",
            "\"occurredAt\":\"2026-01-01T00:00:01Z\"");
    assertThat(scans(body(many, true))).isTrue();
    sameAsTheFullDecode(body(many, true));
    sameAsTheFullDecode(body("", false));
  }

  @Test
  void whatIsOutsideTheScannedShapeIsLeftToTheParser() {
    List<String> payloads = List.of("1.5", "1e3", "-0", "01", "1234567890123456789",
        "\"\\n\"", "\"\u00e9\"", "{\"a\" :1}", "[1, 2]", "{\"a\":1,\"a\":2}",
        "{\"\\u0061\":1,\"a\":2}", "\"\u007f\"");
    for (String payload : payloads) {
      String body = scannedBody(payload);
      assertThat(scans(body)).as(payload).isFalse();
      sameAsTheFullDecode(body);
    }
    StringBuilder deep = new StringBuilder();
    for (int i = 0; i < EventArrayScanner.MAX_DEPTH + 1; i++) {
      deep.append('[');
    }
    deep.append("1");
    for (int i = 0; i < EventArrayScanner.MAX_DEPTH + 1; i++) {
      deep.append(']');
    }
    assertThat(scans(scannedBody(deep.toString()))).isFalse();
    sameAsTheFullDecode(scannedBody(deep.toString()));
    StringBuilder wide = new StringBuilder("{\"k0\":0");
    for (int i = 1; i <= EventArrayScanner.MAX_KEYS; i++) {
      wide.append(",\"k").append(i).append("\":").append(i);
    }
    wide.append('}');
    assertThat(scans(scannedBody(wide.toString()))).isFalse();
    sameAsTheFullDecode(scannedBody(wide.toString()));
    // an unknown event key, keys out of the written order in the record
    sameAsTheFullDecode(scannedBody("{}").replace("\"type\":\"t\"", "\"type\":\"t\",\"x\":1"));
    sameAsTheFullDecode(scannedBody("{}").replace("{\"committedAt\":\"" + AT + "\",",
        "{\"firstSequence\":1,\"committedAt\":\"" + AT + "\",").replace(",\"firstSequence\":1,",
        ","));
  }

  @Test
  void malformedEventsFailAsTheFullDecodeFailsThem() {
    List<String> bodies = List.of(scannedBody("{\"a\":1,}"), scannedBody("[1,]"),
        scannedBody("tru"), scannedBody("{\"a\"1}"), scannedBody("nul"), scannedBody("-"),
        scannedBody("{\"a\":}"), scannedBody("[1,,2]"), scannedBody("[1}"),
        scannedBody("{\"a\":1]"),
        scannedBody("{}").replace("\"sequence\":1", "\"sequence\":0"),
        scannedBody("{}").replace("\"sequence\":1", "\"sequence\":\"1\""),
        scannedBody("{}").replace("\"sequence\":1", "\"sequence\":2"),
        scannedBody("{}").replace(",\"payload\":{}", ""),
        scannedBody("{}").replace("\"id\":\"i1\",", ""),
        scannedBody("{}").replace("\"type\":\"t\"", "\"type\":null"),
        scannedBody("{}").replace("\"id\":\"i1\"", "\"id\":\"i1\",\"id\":\"i2\""),
        scannedBody("{}").replace("\"occurredAt\":\"" + AT, "\"occurredAt\":\"2026-13-01T00Z"),
        body(event(1, "{}") + ",", false), body(event(1, "{}") + ",1", false),
        body("{}", false), body("[]", false));
    for (String body : bodies) {
      sameAsTheFullDecode(body);
      assertThat(answer(JournalLine::decode, frame(body))).as(body).isInstanceOf(String.class);
    }
  }

  @Test
  void randomBytesChangedInScannedRecordsReadOrFailAsTheFullDecode(TestSeed seed) {
    Random random = seed.random();
    String alphabet = "{}[]\",:0123456789-aeflnrstu.E \\";
    for (int i = 0; i < 2000 * SCALE; i++) {
      StringBuilder events = new StringBuilder();
      int n = 1 + random.nextInt(3);
      for (int e = 1; e <= n; e++) {
        events.append(e > 1 ? "," : "").append(event(e, randomValue(random, 0)));
      }
      String body = body(events.toString(), random.nextBoolean());
      try {
        sameAsTheFullDecode(body);
        char[] chars = body.toCharArray();
        int from = body.indexOf("\"events\":[");
        int to = body.indexOf(",\"firstSequence\"");
        for (int c = random.nextInt(3); c >= 0; c--) {
          chars[from + random.nextInt(to - from)] = alphabet.charAt(random.nextInt(
              alphabet.length()));
        }
        sameAsTheFullDecode(new String(chars));
      } catch (AssertionError e) {
        throw new AssertionError(seed + " case " + i, e);
      }
    }
  }

  /** A random JSON value in (mostly) the scanned shape. */
  private static String randomValue(Random random, int depth) {
    return switch (random.nextInt(depth > 3 ? 6 : 8)) {
      case 0 -> "\"" + "abc xyz-_.:/".substring(random.nextInt(6), 6 + random.nextInt(7))
          + "\"";
      case 1 -> Integer.toString(random.nextInt());
      case 2 -> Long.toString(random.nextLong() / (1 + random.nextInt(1000)));
      case 3 -> Integer.toString(random.nextInt(100) - 50);
      case 4 -> random.nextBoolean() ? "true" : "false";
      case 5 -> "null";
      case 6 -> {
        StringBuilder object = new StringBuilder("{");
        int n = random.nextInt(4);
        for (int i = 0; i < n; i++) {
          object.append(i > 0 ? "," : "").append("\"k").append(random.nextInt(6)).append("\":")
              .append(randomValue(random, depth + 1));
        }
        yield object.append('}').toString();
      }
      default -> {
        StringBuilder array = new StringBuilder("[");
        int n = random.nextInt(4);
        for (int i = 0; i < n; i++) {
          array.append(i > 0 ? "," : "").append(randomValue(random, depth + 1));
        }
        yield array.append(']').toString();
      }
    };
  }
}
