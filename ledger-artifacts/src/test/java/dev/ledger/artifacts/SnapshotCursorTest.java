package dev.ledger.artifacts;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.common.io.BaseEncoding;
import dev.ledger.core.InvalidCursorException;
import dev.ledger.core.InvalidIdentifierException;
import dev.ledger.core.internal.io.Identifiers;
import dev.ledger.core.internal.json.LedgerJson;
import dev.ledger.testing.base.SeedExtension;
import dev.ledger.testing.base.TestSeed;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The snapshot cursor's token: what it encodes, and that every token this library did not
 * issue for the root being listed is refused with {@link InvalidCursorException}.
 */
@ExtendWith(SeedExtension.class)
class SnapshotCursorTest {
  private static final BaseEncoding BASE64 = BaseEncoding.base64Url().omitPadding();
  private static final String ROOT = "run-1";
  private static final String SNAPSHOT = ArtifactSnapshot.idFor("attempt-7");
  private static final String HEX = SNAPSHOT.substring("attempt-".length());
  private static final String DIGEST = LedgerJson.sha256Hex(ROOT).substring(0, 16);

  private static String token(String json) {
    return BASE64.encode(json.getBytes(StandardCharsets.UTF_8));
  }

  private static String json(SnapshotCursor cursor) {
    return new String(BASE64.decode(cursor.token()), StandardCharsets.UTF_8);
  }

  @Test
  void startIsTheEmptyTokenAndDecodesToNothing() {
    assertThat(SnapshotCursor.START.isStart()).isTrue();
    assertThat(SnapshotCursor.of("")).isEqualTo(SnapshotCursor.START);
    assertThat(SnapshotCursor.START.lastSnapshotId(ROOT)).isEmpty();
    assertThat(SnapshotCursor.START).hasToString("SnapshotCursor[START]");
  }

  @Test
  void tokenIsBase64OfTheDocumentedObjectAndRoundTrips() {
    SnapshotCursor cursor = SnapshotCursor.after(ROOT, SNAPSHOT);
    assertThat(cursor.isStart()).isFalse();
    assertThat(cursor.token()).matches("[A-Za-z0-9_-]+");
    assertThat(json(cursor))
        .isEqualTo("{\"after\":\"" + HEX + "\",\"root\":\"" + DIGEST + "\",\"v\":1}");
    assertThat(cursor.lastSnapshotId(ROOT)).contains(SNAPSHOT);
    assertThat(SnapshotCursor.of(cursor.token())).isEqualTo(cursor);
  }

  @Test
  void randomRootsAndSnapshotsRoundTripAndStayBound(TestSeed seed) {
    Random random = seed.random();
    String alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-";
    for (int i = 0; i < 500; i++) {
      StringBuilder root = new StringBuilder().append(alphabet.charAt(random.nextInt(62)));
      for (int n = random.nextInt(127); n > 0; n--) {
        root.append(alphabet.charAt(random.nextInt(alphabet.length())));
      }
      String snapshot = ArtifactSnapshot.idFor("a-" + random.nextLong());
      if (!Identifiers.isValid(root.toString())) {
        continue; // a root id no store accepts ("a..b", "x.", "nul.txt"): no cursor to bind
      }
      SnapshotCursor cursor = SnapshotCursor.after(root.toString(), snapshot);
      assertThat(cursor.token().length()).as("seed %s", seed).isLessThanOrEqualTo(256);
      assertThat(SnapshotCursor.of(cursor.token()).lastSnapshotId(root.toString()))
          .as("seed %s root %s", seed, root).contains(snapshot);
      String other = root + "x".repeat(root.length() < 128 ? 1 : 0);
      if (!other.contentEquals(root)) {
        assertThatThrownBy(() -> cursor.lastSnapshotId(other)).as("seed %s root %s", seed, root)
            .isInstanceOf(InvalidCursorException.class);
      }
    }
  }

  @Test
  void cursorOfAnotherRootIsRefused() {
    SnapshotCursor cursor = SnapshotCursor.after("run-2", SNAPSHOT);
    assertThatThrownBy(() -> cursor.lastSnapshotId(ROOT))
        .isInstanceOf(InvalidCursorException.class)
        .hasMessageContaining("'run-1'").hasMessageContaining("another root");
    // Case matters: Run-1 and run-1 are different roots.
    assertThatThrownBy(() -> SnapshotCursor.after("Run-1", SNAPSHOT).lastSnapshotId(ROOT))
        .isInstanceOf(InvalidCursorException.class);
  }

  @Test
  void journalCursorOfTheSameRootIsRefused() {
    // The exact shape of a ledger journal cursor for ledger 'run-1' (same root digest).
    String journal = token("{\"after\":3,\"offset\":120,\"root\":\"" + DIGEST
        + "\",\"segment\":1,\"v\":1}");
    assertThatThrownBy(() -> SnapshotCursor.of(journal).lastSnapshotId(ROOT))
        .isInstanceOf(InvalidCursorException.class)
        .hasMessageContaining("not a snapshot listing cursor");
  }

  @Test
  void forgedAndMalformedTokensAreRefusedWithTheReason() {
    String valid = "\"after\":\"" + HEX + "\",\"root\":\"" + DIGEST + "\"";
    List<List<String>> cases = List.of(
        List.of("x".repeat(257), "at most 256"),
        List.of("not base64!", "not url-safe base64"),
        List.of(SnapshotCursor.after(ROOT, SNAPSHOT).token() + "==", "not url-safe base64"),
        List.of(BaseEncoding.base64().encode(("{" + valid + ",\"v\":1}?>")
            .getBytes(StandardCharsets.UTF_8)), "not url-safe base64"),
        List.of(token("{" + valid), "does not hold a cursor"),
        List.of(token(" "), "does not hold a cursor"),
        List.of(token("[1,2]"), "not hold a cursor object"),
        List.of(token("\"" + HEX + "\""), "not hold a cursor object"),
        List.of(token("{" + valid + "}"), "'v' is missing"),
        List.of(token("{" + valid + ",\"v\":\"1\"}"), "'v' is missing or not an integer"),
        List.of(token("{" + valid + ",\"v\":2}"), "version 2 is newer"),
        List.of(token("{" + valid + ",\"v\":0}"), "unknown cursor version 0"),
        List.of(token("{" + valid + ",\"v\":1,\"x\":0}"), "unexpected cursor field 'x'"),
        List.of(token("{\"after\":\"" + HEX + "\",\"v\":1}"), "names no root"),
        List.of(token("{\"after\":\"" + HEX + "\",\"root\":7,\"v\":1}"), "names no root"),
        List.of(token("{\"root\":\"" + DIGEST + "\",\"v\":1}"), "'after'"),
        List.of(token("{\"after\":\"" + HEX.toUpperCase() + "\",\"root\":\"" + DIGEST
            + "\",\"v\":1}"), "'after'"),
        List.of(token("{\"after\":\"" + HEX.substring(1) + "\",\"root\":\"" + DIGEST
            + "\",\"v\":1}"), "'after'"),
        List.of(token("{\"after\":\"../../x\",\"root\":\"" + DIGEST + "\",\"v\":1}"),
            "'after'"),
        List.of(token("{\"after\":\"" + HEX + "\",\"after\":\"" + HEX + "\",\"root\":\""
            + DIGEST + "\",\"v\":1}"), "does not hold a cursor"),
        List.of(token("{\"v\":1," + valid + "}"), "not in the form this library issues"),
        List.of(token("{ " + valid + ",\"v\":1}"), "not in the form this library issues"),
        List.of(token("{" + valid + ",\"v\":1.0}"), "'v' is missing or not an integer"));
    for (List<String> c : cases) {
      SnapshotCursor forged = SnapshotCursor.of(c.get(0));
      assertThatThrownBy(() -> forged.lastSnapshotId(ROOT)).as(c.get(0))
          .isInstanceOf(InvalidCursorException.class)
          .hasMessageStartingWith("Invalid snapshot cursor for root 'run-1': ")
          .hasMessageContaining(c.get(1));
    }
  }

  @Test
  void encodingRefusesInvalidIdsAndDecodingAnInvalidRoot() {
    assertThatThrownBy(() -> SnapshotCursor.after("../x", SNAPSHOT))
        .isInstanceOf(InvalidIdentifierException.class);
    assertThatThrownBy(() -> SnapshotCursor.after(ROOT, "attempt-x"))
        .isInstanceOf(InvalidIdentifierException.class);
    assertThatThrownBy(() -> SnapshotCursor.START.lastSnapshotId("a/b"))
        .isInstanceOf(InvalidIdentifierException.class);
    assertThatThrownBy(() -> SnapshotCursor.of(null)).isInstanceOf(NullPointerException.class);
  }

  @Test
  void pageOfNothingKeepsItsCursorAndAPageWithMoreIsNeverEmpty() {
    SnapshotCursor cursor = SnapshotCursor.after(ROOT, SNAPSHOT);
    assertThat(SnapshotPage.of(ROOT, cursor, List.of(), false).nextCursor()).isSameAs(cursor);
    assertThat(SnapshotPage.of(ROOT, SnapshotCursor.START, List.of(), false).nextCursor())
        .isEqualTo(SnapshotCursor.START);
    assertThatThrownBy(() -> new SnapshotPage(List.of(), cursor, true))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(Optional.of(SNAPSHOT)).isEqualTo(cursor.lastSnapshotId(ROOT));
  }
}
