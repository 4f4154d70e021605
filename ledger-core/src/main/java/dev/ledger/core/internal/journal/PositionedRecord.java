package dev.ledger.core.internal.journal;

/**
 * A commit record and where it starts: segment and byte offset for the file journal, record
 * index (segment 0) for the in-memory one. The pair is what cursors carry as their hint.
 *
 * @param record the record
 * @param segment the segment holding it
 * @param offset where its line starts
 */
public record PositionedRecord(CommitRecord record, long segment, long offset) {}
