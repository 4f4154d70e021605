/**
 * Internal: the journal's record and line formats, cursors and event pages. No promise to anyone outside the library: this package is not exported
 * (or only to the library's own modules) and may change in any release.
 */
package dev.ledger.core.internal.journal;
