package dev.ledger.core;

/**
 * A recorded event's payload does not map to the type asked for in
 * {@link Event#payloadAs(Class)}: the payload class changed in a way the recorded JSON does
 * not fit. Events are immutable history, so the fix is on the reading side (a fitting class,
 * or reading the payload as a tree).
 */
public class PayloadMappingException extends LedgerException {
  private static final long serialVersionUID = 1L;
  /** Serialized with the exception; what {@link #rootId()} returns. */
  private final String rootId;
  /** Serialized with the exception; what {@link #sequence()} returns. */
  private final long sequence;
  /** Serialized with the exception; what {@link #path()} returns. */
  private final String path;

  /**
   * Creates the exception.
   *
   * @param event the event whose payload failed to map
   * @param type the type it was mapped to, as the message should name it
   * @param path JSON Pointer to the field that failed ({@code ""} for the whole payload)
   * @param problem what went wrong there
   * @param cause the mapper's exception, or null
   */
  public PayloadMappingException(Event event, String type, String path, String problem,
      Throwable cause) {
    super("Ledger '" + event.rootId() + "' event " + event.sequence() + " (" + event.type()
        + ") payload does not map to " + type + (path.isEmpty() ? "" : " at " + path) + ": "
        + problem, cause);
    this.rootId = event.rootId();
    this.sequence = event.sequence();
    this.path = path;
  }

  /**
   * The ledger's root id.
   *
   * @return the root id
   */
  public String rootId() {
    return rootId;
  }

  /**
   * The sequence of the event.
   *
   * @return the sequence
   */
  public long sequence() {
    return sequence;
  }

  /**
   * Where in the payload the mapping failed.
   *
   * @return a JSON Pointer, or {@code ""} for the whole payload
   */
  public String path() {
    return path;
  }
}
