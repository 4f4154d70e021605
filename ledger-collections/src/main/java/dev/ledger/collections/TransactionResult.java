package dev.ledger.collections;

/**
 * What a transaction with a command id did.
 *
 * @param value what the callback returned, or null when the command was already recorded
 *     (the callback did not run)
 * @param revision the revision the transaction committed (for a replay, the one it committed
 *     the first time); the view's revision when it wrote nothing
 * @param replayed true if the command was recorded before and nothing was written now
 * @param <R> the callback's result type
 */
public record TransactionResult<R>(R value, long revision, boolean replayed) {}
