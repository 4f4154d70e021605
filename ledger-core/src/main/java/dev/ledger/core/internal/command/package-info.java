/**
 * Internal: how a command's intent is digested, shared by the typed ledger and the journal.
 * No promise to anyone outside the library; this package is not exported.
 */
package dev.ledger.core.internal.command;
