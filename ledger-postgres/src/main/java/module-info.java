/**
 * Ledgers on PostgreSQL: {@link dev.ledger.postgres.PostgresLedgerStore}, the same contract as
 * the file store for workers on many hosts, and
 * {@link dev.ledger.postgres.PostgresArtifactStore}, attempt snapshots in the same database
 * over blobs on storage every host mounts.
 */
@SuppressWarnings("requires-automatic") // the PostgreSQL driver names itself in its manifest
module dev.ledger.postgres {
  requires transitive dev.ledger.core;
  requires transitive dev.ledger.artifacts;
  requires transitive java.sql;
  requires com.google.common;
  requires org.slf4j;
  requires org.postgresql.jdbc;
  requires com.zaxxer.hikari;

  exports dev.ledger.postgres;
}
