package dev.ledger.core;

/**
 * What an import of a ledger export rebuilt.
 *
 * @param rootId the ledger's root id, as the export names it
 * @param revision the last revision imported, the ledger's revision now
 * @param events the number of events imported (the last event's sequence)
 * @param commands the number of command ids recorded, each of which replays as before
 */
public record ImportResult(String rootId, long revision, long events, int commands) {}
