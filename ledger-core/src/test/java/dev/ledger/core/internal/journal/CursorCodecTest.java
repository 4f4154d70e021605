package dev.ledger.core.internal.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ledger.core.Cursor;
import dev.ledger.core.InvalidCursorException;
import dev.ledger.testing.base.SeedExtension;
import dev.ledger.testing.base.TestSeed;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(SeedExtension.class)
class CursorCodecTest {
  @Test
  void encodeDecodeRoundTripsAndTokensAreUrlSafe(TestSeed seed) {
    Random random = seed.random();
    for (int i = 0; i < 5000; i++) {
      long after = random.nextLong() & Long.MAX_VALUE;
      long segment = random.nextLong() & Long.MAX_VALUE;
      long offset = random.nextLong() & Long.MAX_VALUE;
      String root = "root-" + random.nextInt(100);
      Cursor cursor = CursorCodec.encode(root, after, segment, offset);
      assertThat(cursor.token()).as("%s", seed).matches("[A-Za-z0-9_-]+")
          .hasSizeLessThanOrEqualTo(CursorCodec.MAX_TOKEN_LENGTH);
      assertThat(CursorCodec.decode(root, cursor)).as("%s", seed)
          .isEqualTo(new CursorCodec.Position(after, segment, offset));
    }
  }

  @Test
  void tokensHoldTheCanonicalJsonOfThePosition(TestSeed seed) throws Exception {
    Random random = seed.random();
    for (int i = 0; i < 200; i++) {
      long after = random.nextLong();
      long segment = random.nextLong();
      long offset = random.nextLong();
      String token = CursorCodec.encode("root-" + i, after, segment, offset).token();
      byte[] raw = com.google.common.io.BaseEncoding.base64Url().omitPadding().decode(token);
      com.fasterxml.jackson.databind.node.ObjectNode expected =
          com.fasterxml.jackson.databind.node.JsonNodeFactory.instance.objectNode();
      expected.put("v", 1).put("segment", segment).put("root",
          dev.ledger.core.internal.json.LedgerJson.sha256Hex("root-" + i).substring(0, 16))
          .put("offset", offset).put("after", after);
      assertThat(raw).as("%s", seed)
          .isEqualTo(dev.ledger.core.internal.json.LedgerJson.canonical(expected));
    }
  }

  @Test
  void tokensOfEveryNumberOfDigitsHoldTheDecimalText() {
    // The encoder writes digits itself: each length from 1 to 19 digits, its edges, and signs.
    java.util.List<Long> values = new java.util.ArrayList<>(
        java.util.List.of(0L, Long.MAX_VALUE, Long.MIN_VALUE, -1L, Long.MIN_VALUE + 1));
    for (long p = 1; p > 0 && p <= Long.MAX_VALUE / 10 * 10; p *= 10) {
      values.add(p - 1);
      values.add(p);
      values.add(p + 1);
      values.add(-p);
      if (p > Long.MAX_VALUE / 10) {
        break;
      }
    }
    for (long value : values) {
      String token = CursorCodec.encode("r", value, value, value).token();
      String json = new String(com.google.common.io.BaseEncoding.base64Url().omitPadding()
          .decode(token), java.nio.charset.StandardCharsets.US_ASCII);
      String digest = dev.ledger.core.internal.json.LedgerJson.sha256Hex("r").substring(0, 16);
      assertThat(json).as("value %d", value).isEqualTo("{\"after\":" + value + ",\"offset\":"
          + value + ",\"root\":\"" + digest + "\",\"segment\":" + value + ",\"v\":1}");
    }
  }

  @Test
  void randomTokensAreRefusedWithTheTypedError(TestSeed seed) {
    Random random = seed.random();
    String alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_=+/. \u0000";
    for (int i = 0; i < 5000; i++) {
      StringBuilder token = new StringBuilder();
      for (int n = random.nextInt(300); n > 0; n--) {
        token.append(alphabet.charAt(random.nextInt(alphabet.length())));
      }
      assertThatThrownBy(() -> CursorCodec.decode("root", Cursor.of(token.toString())))
          .as("%s token %s", seed, token).isInstanceOf(InvalidCursorException.class);
    }
  }

  @Test
  void negativeAndForeignPositionsAreRefused() {
    Cursor negative = CursorCodec.encode("r", 5, 1, 0);
    assertThatThrownBy(() -> CursorCodec.decode("other", negative))
        .isInstanceOf(InvalidCursorException.class).hasMessageContaining("another ledger");
    String json = "{\"after\":-1,\"offset\":0,\"root\":\"%s\",\"segment\":1,\"v\":1}";
    String digest = com.google.common.hash.Hashing.sha256().hashString("r",
        java.nio.charset.StandardCharsets.UTF_8).toString().substring(0, 16);
    String token = java.util.Base64.getUrlEncoder().withoutPadding().encodeToString(
        String.format(json, digest).getBytes(java.nio.charset.StandardCharsets.UTF_8));
    assertThatThrownBy(() -> CursorCodec.decode("r", Cursor.of(token)))
        .isInstanceOf(InvalidCursorException.class).hasMessageContaining("negative");
  }
}
