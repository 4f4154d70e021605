package dev.ledger.registry.collections;

import dev.ledger.registry.WorkspacePathException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.List;

/**
 * The registry's path rules: workspaces are existing directories that are not symbolic
 * links (nor pass through one below a workspace root), inside a root when roots are set;
 * paths inside a workspace are relative, stay inside, and pass through no existing link.
 */
final class WorkspacePaths {
  private WorkspacePaths() {}

  /** The canonical path of a workspace directory, or a refusal. */
  static Path canonicalWorkspace(Path given, List<Path> roots) {
    Path absolute = given.toAbsolutePath().normalize();
    if (Files.isSymbolicLink(absolute)) {
      throw new WorkspacePathException(given.toString(), "it is a symbolic link");
    }
    if (!Files.isDirectory(absolute, LinkOption.NOFOLLOW_LINKS)) {
      throw new WorkspacePathException(given.toString(),
          Files.exists(absolute, LinkOption.NOFOLLOW_LINKS) ? "it is not a directory"
              : "it does not exist");
    }
    Path real = real(given, absolute);
    if (roots.isEmpty()) {
      return real;
    }
    for (Path root : roots) {
      Path rootAbsolute = root.toAbsolutePath().normalize();
      if (!absolute.startsWith(rootAbsolute) || !Files.isDirectory(rootAbsolute)) {
        continue;
      }
      Path rootReal = real(root, rootAbsolute);
      // Every directory between the root and the workspace must be a real directory: a link
      // there could point anywhere, today or after a later swap.
      Path walk = rootAbsolute;
      for (Path part : rootAbsolute.relativize(absolute)) {
        walk = walk.resolve(part);
        if (Files.isSymbolicLink(walk)) {
          throw new WorkspacePathException(given.toString(),
              "it passes through the symbolic link " + walk);
        }
      }
      if (real.startsWith(rootReal)) {
        return real;
      }
    }
    throw new WorkspacePathException(given.toString(),
        "it lies outside the workspace roots " + roots);
  }

  /** Checks a path relative to a workspace; returns it normalized with '/' separators. */
  static String relative(Path workspace, String field, String given) {
    if (given.isEmpty()) {
      throw new WorkspacePathException(given, field + " is empty");
    }
    Path relative;
    try {
      relative = workspace.getFileSystem().getPath(given);
    } catch (java.nio.file.InvalidPathException e) {
      throw new WorkspacePathException(given, field + " is not a valid path: " + e.getReason());
    }
    if (relative.isAbsolute() || relative.getRoot() != null) {
      throw new WorkspacePathException(given, field + " must be relative to the workspace");
    }
    for (Path part : relative) {
      if (part.toString().equals("..")) {
        throw new WorkspacePathException(given, field + " leaves the workspace ('..')");
      }
    }
    Path inside = workspace.resolve(relative).normalize();
    if (!inside.startsWith(workspace) || inside.equals(workspace)) {
      throw new WorkspacePathException(given, field + " must name a path inside the workspace");
    }
    Path walk = workspace;
    for (Path part : workspace.relativize(inside)) {
      walk = walk.resolve(part);
      if (Files.isSymbolicLink(walk)) {
        throw new WorkspacePathException(given, field + " passes through the symbolic link "
            + walk);
      }
    }
    return workspace.relativize(inside).toString().replace(
        workspace.getFileSystem().getSeparator(), "/");
  }

  private static Path real(Path given, Path absolute) {
    try {
      return absolute.toRealPath();
    } catch (IOException e) {
      throw new WorkspacePathException(given.toString(), "it cannot be resolved: " + e);
    }
  }
}
