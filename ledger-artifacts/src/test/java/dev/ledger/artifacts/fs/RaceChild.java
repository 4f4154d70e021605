package dev.ledger.artifacts.fs;

import dev.ledger.artifacts.ArtifactConflictException;
import dev.ledger.artifacts.ArtifactSnapshot;
import dev.ledger.artifacts.ContentId;
import dev.ledger.artifacts.GeneratedInputStream;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * A racer in a child JVM for {@link RaceTest}: opens the store, prints {@code ready}, waits
 * for a line on stdin, performs one operation and prints its outcome as one line.
 *
 * <p>Arguments: {@code <base> <mode> <racer> [blob id]}, mode being {@code freeze-same},
 * {@code freeze-different} or {@code put}.
 */
public final class RaceChild {
  private RaceChild() {}

  /** Runs one racer; see the class comment for the arguments. */
  public static void main(String[] args) throws Exception {
    try (FileArtifactStore store = FileArtifactStore.open(Path.of(args[0]))) {
      System.out.println("ready");
      System.out.flush();
      new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
      ContentId blob = args.length > 3 ? ContentId.parse(args[3]) : null;
      System.out.println(RaceTest.race(store, args[1], Integer.parseInt(args[2]), blob));
      System.out.flush();
    }
  }

  /** The outcome line of a freeze. */
  static String outcome(ArtifactSnapshot snapshot) {
    return "SNAPSHOT " + snapshot.sha256() + " " + snapshot.frozenAt();
  }

  /** The outcome line of a conflict. */
  static String outcome(ArtifactConflictException conflict) {
    return "CONFLICT " + conflict.existingSha256() + " " + conflict.attemptedSha256();
  }

  /** The outcome line of a put. */
  static String outcome(ContentId id) {
    return "BLOB " + id.hex();
  }

  static GeneratedInputStream racedBytes() {
    return new GeneratedInputStream(3L * 1024 * 1024 + 17, 42);
  }
}
