package dev.ledger.collections;

/**
 * A query is malformed: an unknown field or operator, a condition given the wrong kind of
 * value, the same operator twice on one field inside one {@code must} set, a bad aggregate, a
 * negative limit other than -1 or a negative offset. Refused before any document is read,
 * whatever the data.
 */
public class InvalidQueryException extends CollectionException {
  private static final long serialVersionUID = 1L;
  /** Serialized with the exception; what {@link #subject()} returns. */
  private final String subject;

  /**
   * Creates the exception.
   *
   * @param partition the partition, or null when the query was refused as it was built
   * @param subject the field path or option at fault ({@code "status"}, {@code "limit"})
   * @param problem what is wrong with it
   */
  public InvalidQueryException(String partition, String subject, String problem) {
    super(partition, "invalid query on '" + subject + "': " + problem);
    this.subject = subject;
  }

  /**
   * The field path or option at fault.
   *
   * @return its name
   */
  public String subject() {
    return subject;
  }
}
