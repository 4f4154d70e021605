package dev.ledger.cli;

import java.io.PrintWriter;
import picocli.AutoComplete;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;

/**
 * The {@code ledger} command: its subcommands, the {@code --verbose} option they share, and
 * the mapping of failures to one line on standard error and an {@link ExitCodes exit code}.
 */
@Command(name = "ledger",
    mixinStandardHelpOptions = true,
    versionProvider = LedgerCommand.Version.class,
    description = "Look into, check, follow, export and clean a ledger store.%n"
        + "DIR is a store directory: its ledgers (store.json, ledgers/) and, when the store "
        + "keeps artifacts, its artifact store (DIR/artifacts), as FileLedgerStore.open(DIR) "
        + "and FileArtifactStore.open(DIR) lay them out.",
    subcommands = {
        LsCommand.class,
        ShowCommand.class,
        EventsCommand.class,
        VerifyCommand.class,
        RepairCommand.class,
        ExportCommand.class,
        ImportCommand.class,
        BackupCommand.class,
        GcCommand.class,
        OrphansCommand.class,
        BlobsCommand.class,
        QueryCommand.class,
        RunsCommand.class,
        LineagesCommand.class,
        AutoComplete.GenerateCompletion.class,
        CommandLine.HelpCommand.class},
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {
        "0:done; verify found no damage",
        "1:damage found, or the operation failed for a reason in the data (no such ledger, "
            + "revision, blob, partition or collection, a corrupt file, an invalid export, a ledger "
            + "that exists)",
        "2:usage error (unknown option, bad argument, invalid root id, cursor or query)",
        "3:the environment: DIR is not a store, a file cannot be read or written, a lock "
            + "was not had in time, the store is read-only",
        "4:an unexpected internal error (a bug: --verbose shows the stack trace)"})
public final class LedgerCommand {
  @Option(names = "--verbose", scope = ScopeType.INHERIT,
      description = "On failure, print the stack trace after the one-line error.")
  boolean verbose;

  private LedgerCommand() {}

  /**
   * Runs the command line and exits the JVM with its exit code.
   *
   * @param args the command line
   */
  public static void main(String[] args) {
    // Standard output is flushed by the commands where it matters (each page of events, each
    // event while following) and here at the end; not after every line.
    PrintWriter out = new PrintWriter(System.out, false);
    int exit = run(args, out, new PrintWriter(System.err, true));
    out.flush();
    System.exit(exit);
  }

  /**
   * Runs the command line with the given output and error writers.
   *
   * @param args the command line
   * @param out standard output
   * @param err standard error
   * @return the exit code (see {@link ExitCodes})
   */
  static int run(String[] args, PrintWriter out, PrintWriter err) {
    LedgerCommand root = new LedgerCommand();
    CommandLine line = new CommandLine(root);
    line.setOut(out);
    line.setErr(err);
    line.setExitCodeExceptionMapper(Failures::exitCode);
    line.setParameterExceptionHandler((e, arguments) -> {
      CommandLine command = e.getCommandLine();
      command.getErr().println(command.getCommandSpec().qualifiedName() + ": "
          + Failures.oneLine(e.getMessage()) + " (see '"
          + command.getCommandSpec().qualifiedName() + " --help')");
      command.getErr().flush();
      return ExitCodes.USAGE;
    });
    line.setExecutionExceptionHandler((e, command, parsed) -> {
      PrintWriter errors = command.getErr();
      String message = Failures.describe(e);
      if (command.getCommand() instanceof StoreCommand store && store.dir() != null
          && Failures.exitCode(e) != ExitCodes.USAGE
          && !message.contains(store.dir().toAbsolutePath().toString())) {
        message = store.dir().toAbsolutePath() + ": " + message; // name the store
      }
      errors.println(command.getCommandSpec().qualifiedName() + ": " + message);
      if (root.verbose) {
        e.printStackTrace(errors);
      }
      errors.flush();
      return Failures.exitCode(e);
    });
    return line.execute(args);
  }

  /** The version from the jar's manifest. */
  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      String version = LedgerCommand.class.getPackage().getImplementationVersion();
      return new String[] {"ledger " + (version == null ? "(development build)" : version)};
    }
  }
}
