package dev.ledger.testing.base;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.ledger.testing.base.DirectorySnapshot.Aspect;
import dev.ledger.testing.base.DirectorySnapshot.Options;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What a snapshot records, what it leaves out, and how it reports a difference. */
class DirectorySnapshotTest {
  /** SHA-256 of "hello". */
  private static final String HELLO =
      "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824";
  private static final FileTime T1 = FileTime.from(Instant.parse("2026-01-01T00:00:00Z"));
  private static final FileTime T2 = FileTime.from(Instant.parse("2026-01-02T00:00:00Z"));

  @TempDir
  Path temp;
  Path root;
  Path file;

  @BeforeEach
  void tree() throws IOException {
    root = Files.createDirectory(temp.resolve("root"));
    Files.createDirectories(root.resolve("a/b"));
    file = Files.writeString(root.resolve("a/b/file.txt"), "hello");
    Files.setLastModifiedTime(file, T1);
  }

  @Test
  void describesEveryPathRelativeToTheRoot() throws IOException {
    assertThat(DirectorySnapshot.of(root).entries()).containsExactly(
        entry(".", "dir"), entry("a", "dir"), entry("a/b", "dir"),
        entry("a/b/file.txt", "5 bytes, sha256 " + HELLO + " @" + T1));
    assertThat(DirectorySnapshot.of(root, Options.of()).entries())
        .containsEntry("a/b/file.txt", "5 bytes");
  }

  @Test
  void aSnapshotIsUnchangedWhenTheTreeIs() throws IOException {
    DirectorySnapshot before = DirectorySnapshot.of(root);
    DirectorySnapshot after = DirectorySnapshot.of(root);
    assertThat(after).isEqualTo(before).hasSameHashCodeAs(before);
    assertThat(before.diff(after)).isEmpty();
  }

  @Test
  void anAddedFileIsADifference() throws IOException {
    DirectorySnapshot before = DirectorySnapshot.of(root);
    Files.writeString(root.resolve("a/new.txt"), "hello");
    DirectorySnapshot after = DirectorySnapshot.of(root);
    assertThat(after).isNotEqualTo(before);
    assertThat(before.diff(after)).startsWith("added a/new.txt: 5 bytes, sha256 " + HELLO + " @")
        .doesNotContain("\n");
    assertThat(after.diff(before)).startsWith("removed a/new.txt: 5 bytes");
  }

  @Test
  void aRemovedFileIsADifference() throws IOException {
    DirectorySnapshot before = DirectorySnapshot.of(root);
    Files.delete(file);
    assertThat(before.diff(DirectorySnapshot.of(root)))
        .isEqualTo("removed a/b/file.txt: 5 bytes, sha256 " + HELLO + " @" + T1);
  }

  @Test
  void changedContentOfTheSameSizeAndTimeIsADifference() throws IOException {
    DirectorySnapshot before = DirectorySnapshot.of(root);
    Files.writeString(file, "jello");
    Files.setLastModifiedTime(file, T1);
    DirectorySnapshot after = DirectorySnapshot.of(root);
    assertThat(before.diff(after)).isEqualTo("changed a/b/file.txt: 5 bytes, sha256 " + HELLO
        + " @" + T1 + " -> 5 bytes, sha256 " + sha256("jello") + " @" + T1);
    // Without CONTENT only the size and time count, and they did not change.
    Files.writeString(file, "hello");
    Files.setLastModifiedTime(file, T1);
    Options sizeAndTime = Options.of(Aspect.FILE_TIMES);
    DirectorySnapshot sized = DirectorySnapshot.of(root, sizeAndTime);
    Files.writeString(file, "jello");
    Files.setLastModifiedTime(file, T1);
    assertThat(DirectorySnapshot.of(root, sizeAndTime)).isEqualTo(sized);
  }

  @Test
  void aChangedModificationTimeIsADifferenceUnlessTheNameIsIgnored() throws IOException {
    Path lock = Files.writeString(root.resolve(".lock"), "");
    Files.setLastModifiedTime(lock, T1);
    DirectorySnapshot before = DirectorySnapshot.of(root);
    Options lockUntimed = Options.defaults().ignoringTimesOf(".lock");
    DirectorySnapshot beforeUntimed = DirectorySnapshot.of(root, lockUntimed);
    Files.setLastModifiedTime(file, T2);
    Files.setLastModifiedTime(lock, T2);
    DirectorySnapshot after = DirectorySnapshot.of(root);
    assertThat(before.diff(after)).isEqualTo(String.join("\n",
        "changed .lock: 0 bytes, sha256 " + sha256("") + " @" + T1 + " -> 0 bytes, sha256 "
            + sha256("") + " @" + T2,
        "changed a/b/file.txt: 5 bytes, sha256 " + HELLO + " @" + T1 + " -> 5 bytes, sha256 "
            + HELLO + " @" + T2));
    assertThat(beforeUntimed.diff(DirectorySnapshot.of(root, lockUntimed))).isEqualTo(
        "changed a/b/file.txt: 5 bytes, sha256 " + HELLO + " @" + T1 + " -> 5 bytes, sha256 "
            + HELLO + " @" + T2);
    // An ignored time hides only the time: the lock file's content still counts.
    Files.writeString(lock, "pid 1");
    assertThat(beforeUntimed.diff(DirectorySnapshot.of(root, lockUntimed)))
        .contains("changed .lock: 0 bytes, sha256 " + sha256("") + " -> 5 bytes, sha256 "
            + sha256("pid 1") + "\n");
    assertThat(DirectorySnapshot.of(root, Options.of(Aspect.CONTENT))
        .entries().get("a/b/file.txt")).isEqualTo("5 bytes, sha256 " + HELLO);
  }

  @Test
  void directoriesAreDescribedAndTheirTimesCountOnlyWhenAsked() throws IOException {
    Options dirTimes = Options.of(Aspect.DIRECTORY_TIMES);
    Path a = root.resolve("a");
    Files.setLastModifiedTime(a, T1);
    DirectorySnapshot plain = DirectorySnapshot.of(root);
    DirectorySnapshot timed = DirectorySnapshot.of(root, dirTimes);
    assertThat(timed.entries()).containsEntry("a", "dir @" + T1)
        .containsEntry("a/b/file.txt", "5 bytes");

    // A temp file created and deleted again leaves only the directory's time behind.
    Files.delete(Files.writeString(a.resolve("temp"), "x"));
    Files.setLastModifiedTime(a, T2);
    assertThat(DirectorySnapshot.of(root)).isEqualTo(plain);
    assertThat(timed.diff(DirectorySnapshot.of(root, dirTimes)))
        .isEqualTo("changed a: dir @" + T1 + " -> dir @" + T2);

    Files.createDirectory(root.resolve("empty"));
    assertThat(plain.diff(DirectorySnapshot.of(root))).isEqualTo("added empty: dir");
  }

  @Test
  void permissionsCountWhenAsked() throws IOException {
    assumeTrue(root.getFileSystem().supportedFileAttributeViews().contains("posix"));
    Options perms = Options.of(Aspect.PERMISSIONS);
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
    Files.setPosixFilePermissions(root.resolve("a"), PosixFilePermissions.fromString(
        "rwx------"));
    DirectorySnapshot before = DirectorySnapshot.of(root, perms);
    DirectorySnapshot plain = DirectorySnapshot.of(root);
    assertThat(before.entries()).containsEntry("a", "dir rwx------")
        .containsEntry("a/b/file.txt", "5 bytes rw-------");
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("r--------"));
    assertThat(DirectorySnapshot.of(root)).as("permissions not asked for").isEqualTo(plain);
    assertThat(before.diff(DirectorySnapshot.of(root, perms)))
        .isEqualTo("changed a/b/file.txt: 5 bytes rw------- -> 5 bytes r--------");
  }

  @Test
  void aLinkIsDescribedByItsTargetAndNeverFollowed() throws IOException {
    Path outside = Files.createDirectory(temp.resolve("outside"));
    Files.writeString(outside.resolve("secret"), "outside");
    Path link;
    try {
      link = Files.createSymbolicLink(root.resolve("a/link"), outside);
    } catch (UnsupportedOperationException | IOException e) {
      assumeTrue(false, "no symbolic links here: " + e);
      return;
    }
    Files.createSymbolicLink(root.resolve("dangling"), temp.resolve("not-there"));
    DirectorySnapshot before = DirectorySnapshot.of(root);
    assertThat(before.entries()).containsEntry("a/link", "link -> " + outside)
        .containsEntry("dangling", "link -> " + temp.resolve("not-there"))
        .doesNotContainKey("a/link/secret");

    // What the link points to may change: the snapshot of the tree holding the link does not.
    Files.writeString(outside.resolve("secret"), "changed");
    assertThat(DirectorySnapshot.of(root)).isEqualTo(before);

    Files.delete(link);
    Files.createSymbolicLink(link, temp);
    assertThat(before.diff(DirectorySnapshot.of(root)))
        .isEqualTo("changed a/link: link -> " + outside + " -> link -> " + temp);
    // A root that is a link is described, not followed.
    assertThat(DirectorySnapshot.of(link).entries()).containsExactly(entry(".", "link -> "
        + temp));
  }

  @Test
  void treesInTwoPlacesCompareByTheirContent() throws IOException {
    Path other = Files.createDirectories(temp.resolve("other/a/b"));
    Files.writeString(other.resolve("file.txt"), "hello");
    Options content = Options.of(Aspect.CONTENT);
    assertThat(DirectorySnapshot.of(temp.resolve("other"), content))
        .isEqualTo(DirectorySnapshot.of(root, content));
    assertThat(DirectorySnapshot.of(temp.resolve("other"))).as("times differ")
        .isNotEqualTo(DirectorySnapshot.of(root));
  }

  @Test
  void aMissingRootIsAnErrorAndNoneStandsForIt() throws IOException {
    Path missing = temp.resolve("missing");
    assertThatThrownBy(() -> DirectorySnapshot.of(missing))
        .isInstanceOf(NoSuchFileException.class);
    assertThat(DirectorySnapshot.none().entries()).isEmpty();
    Files.createDirectory(missing);
    assertThat(DirectorySnapshot.none().diff(DirectorySnapshot.of(missing)))
        .isEqualTo("added .: dir");
  }

  @Test
  void withoutDropsOnePathOnly() throws IOException {
    DirectorySnapshot snapshot = DirectorySnapshot.of(root);
    DirectorySnapshot fewer = snapshot.without("a/b");
    assertThat(fewer.entries()).containsOnlyKeys(".", "a", "a/b/file.txt");
    assertThat(snapshot.diff(fewer)).isEqualTo("removed a/b: dir");
    assertThat(snapshot.without("not-there")).isSameAs(snapshot);
  }

  @Test
  void toStringListsEveryEntryAndOptionsAreCopied() throws IOException {
    assertThat(DirectorySnapshot.of(root, Options.of()).toString()).isEqualTo(String.join("\n",
        "DirectorySnapshot[4 entries]", "  .: dir", "  a: dir", "  a/b: dir",
        "  a/b/file.txt: 5 bytes"));
    java.util.Set<Aspect> aspects = new java.util.HashSet<>(java.util.Set.of(Aspect.CONTENT));
    Options options = new Options(aspects, java.util.Set.of());
    aspects.add(Aspect.FILE_TIMES);
    assertThat(options.aspects()).containsExactly(Aspect.CONTENT);
    assertThatThrownBy(() -> options.aspects().add(Aspect.PERMISSIONS))
        .isInstanceOf(UnsupportedOperationException.class);
    assertThat(Options.of(Aspect.CONTENT, Aspect.CONTENT).aspects())
        .containsExactly(Aspect.CONTENT);
    assertThatThrownBy(() -> DirectorySnapshot.of(null))
        .isInstanceOf(NullPointerException.class);
  }

  private static java.util.Map.Entry<String, String> entry(String path, String description) {
    return java.util.Map.entry(path, description);
  }

  private static String sha256(String text) {
    try {
      return java.util.HexFormat.of().formatHex(java.security.MessageDigest
          .getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new AssertionError(e);
    }
  }
}
