/**
 * Ledgers on PostgreSQL: {@link dev.ledger.postgres.PostgresLedgerStore} keeps the ledgers of
 * {@link dev.ledger.core.LedgerStore} in tables, for orchestrators whose workers run on several
 * hosts and share one database.
 */
package dev.ledger.postgres;
