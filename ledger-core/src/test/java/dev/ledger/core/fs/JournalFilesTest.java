package dev.ledger.core.fs;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class JournalFilesTest {
  @Test
  void segmentNamesAreTwentyDigitsZeroPaddedAsDocumented() {
    assertThat(JournalFiles.name(1)).isEqualTo("00000000000000000001.jsonl");
    assertThat(JournalFiles.name(4097)).isEqualTo("00000000000000004097.jsonl");
    for (long base : new long[] {0, 9, 10, 123_456_789L, Long.MAX_VALUE, -5}) {
      assertThat(JournalFiles.name(base)).isEqualTo(String.format("%020d.jsonl", base));
    }
  }
}
