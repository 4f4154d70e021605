package dev.ledger.examples;

/** Counts with their noun in agreement: {@code 1 operation}, {@code 2 operations}. */
final class Plural {
  private Plural() {}

  /**
   * {@code n} and the noun, adding {@code s} unless {@code n} is 1.
   *
   * @param n the count
   * @param noun the singular noun
   * @return for example {@code "1 task"} or {@code "3 tasks"}
   */
  static String of(long n, String noun) {
    return of(n, noun, noun + "s");
  }

  /**
   * {@code n} and the singular or plural form.
   *
   * @param n the count
   * @param one the singular form
   * @param many the plural form
   * @return for example {@code "1 retry"} or {@code "2 retries"}
   */
  static String of(long n, String one, String many) {
    return n + " " + (n == 1 ? one : many);
  }
}
