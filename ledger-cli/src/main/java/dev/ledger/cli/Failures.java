package dev.ledger.cli;

import dev.ledger.artifacts.ArtifactConflictException;
import dev.ledger.artifacts.ArtifactNotFoundException;
import dev.ledger.artifacts.CorruptArtifactException;
import dev.ledger.collections.CollectionException;
import dev.ledger.collections.InvalidQueryException;
import dev.ledger.core.CommandConflictException;
import dev.ledger.core.CorruptLedgerException;
import dev.ledger.core.InvalidCursorException;
import dev.ledger.core.InvalidExportException;
import dev.ledger.core.InvalidIdentifierException;
import dev.ledger.core.LedgerException;
import dev.ledger.core.LedgerExistsException;
import dev.ledger.core.LedgerNotFoundException;
import dev.ledger.core.PayloadMappingException;
import dev.ledger.core.RevisionConflictException;
import dev.ledger.core.StateMappingException;
import dev.ledger.core.UnsupportedFormatException;
import dev.ledger.registry.RegistryException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import picocli.CommandLine;

/** How a failure becomes one line on standard error and an exit code. */
final class Failures {
  private Failures() {}

  /**
   * The exit code of a failure.
   *
   * @param e what a command threw
   * @return its exit code
   */
  static int exitCode(Throwable e) {
    if (e instanceof CommandLine.ParameterException || e instanceof InvalidIdentifierException
        || e instanceof InvalidCursorException || e instanceof UsageException
        || e instanceof InvalidQueryException) {
      return ExitCodes.USAGE;
    }
    if (e instanceof DataException || e instanceof CorruptLedgerException
        || e instanceof CorruptArtifactException || e instanceof LedgerNotFoundException
        || e instanceof ArtifactNotFoundException || e instanceof InvalidExportException
        || e instanceof LedgerExistsException || e instanceof UnsupportedFormatException
        || e instanceof StateMappingException || e instanceof PayloadMappingException
        || e instanceof RevisionConflictException || e instanceof CommandConflictException
        || e instanceof ArtifactConflictException || e instanceof CollectionException
        || e instanceof RegistryException) {
      return ExitCodes.DATA;
    }
    if (e instanceof LedgerException || e instanceof IOException
        || e instanceof UncheckedIOException) {
      return ExitCodes.ENVIRONMENT;
    }
    return ExitCodes.INTERNAL;
  }

  /**
   * One line saying what went wrong: the exception's message (which names the path), or for
   * a bare I/O exception the file and the reason.
   *
   * @param e what a command threw
   * @return one line
   */
  static String describe(Throwable e) {
    Throwable shown = e instanceof UncheckedIOException && e.getCause() != null
        ? e.getCause() : e;
    String message;
    if (shown instanceof NoSuchFileException f) {
      message = f.getFile() + ": no such file or directory";
    } else if (shown instanceof AccessDeniedException f) {
      message = f.getFile() + ": permission denied";
    } else if (shown instanceof FileSystemException f) {
      message = f.getFile() + ": " + (f.getReason() == null ? shown.getClass().getSimpleName()
          : f.getReason());
    } else {
      message = shown.getMessage() == null ? shown.getClass().getName() : shown.getMessage();
    }
    if (exitCode(e) == ExitCodes.INTERNAL) {
      message = "internal error: " + shown.getClass().getName() + ": " + message
          + " (--verbose prints the stack trace)";
    }
    return oneLine(message);
  }

  /**
   * A message on one line.
   *
   * @param message any text
   * @return the text with line breaks and the indentation after them turned into "; "
   */
  static String oneLine(String message) {
    return message == null ? "" : message.strip().replaceAll("\\s*\\R\\s*", "; ");
  }

  /** A failure that comes from the data: exit code 1. */
  static final class DataException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    DataException(String message) {
      super(message);
    }
  }

  /** A command line that names something impossible: exit code 2. */
  static final class UsageException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    UsageException(String message) {
      super(message);
    }
  }
}
