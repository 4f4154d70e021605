package dev.ledger.registry;

/**
 * A value given to the registry exceeds its documented limit (a request, a command line,
 * transition details). Nothing was written.
 */
public class RunDataTooLargeException extends RegistryException {
  private static final long serialVersionUID = 1L;
  /** Serialized with the exception; what {@link #field()} returns. */
  private final String field;
  /** Serialized with the exception; what {@link #size()} returns. */
  private final long size;
  /** Serialized with the exception; what {@link #limit()} returns. */
  private final long limit;

  /**
   * Creates the exception.
   *
   * @param field the field that is too large
   * @param size its size, in the unit of the limit
   * @param limit the limit
   */
  public RunDataTooLargeException(String field, long size, long limit) {
    super("Field '" + field + "' is " + size + " bytes as compact JSON; the limit is " + limit);
    this.field = field;
    this.size = size;
    this.limit = limit;
  }

  /**
   * The field that is too large.
   *
   * @return its name
   */
  public String field() {
    return field;
  }

  /**
   * Its size as compact UTF-8 JSON.
   *
   * @return the size in bytes
   */
  public long size() {
    return size;
  }

  /**
   * The limit.
   *
   * @return the limit in bytes
   */
  public long limit() {
    return limit;
  }
}
