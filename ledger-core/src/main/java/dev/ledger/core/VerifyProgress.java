package dev.ledger.core;

/**
 * How far a {@code verify()} has got, passed to its progress callback after each journal
 * segment, every MiB read, and when a ledger is done. Callbacks run on the verifying thread.
 *
 * @param rootId the ledger being verified
 * @param ledger its index among the ledgers verified, from 0
 * @param ledgers how many ledgers this verify covers
 * @param bytesDone journal bytes of this ledger read so far
 * @param bytesTotal the size of this ledger's journal when its verify began; a writer that
 *     commits meanwhile can make {@code bytesDone} exceed it
 */
public record VerifyProgress(String rootId, int ledger, int ledgers, long bytesDone,
    long bytesTotal) {}
