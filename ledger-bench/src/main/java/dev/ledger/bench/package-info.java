/**
 * A side-by-side measurement harness for the ledger file store: every competitor does the
 * same logical commit in one process on one disk, and {@link dev.ledger.bench.Bench} prints
 * medians, spreads and ratios as a Markdown table. Not part of the published library.
 */
package dev.ledger.bench;
