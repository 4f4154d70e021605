/**
 * Internal: file locks, atomic and bounded file operations, identifiers as file names. No promise to anyone outside the library: this package is not exported
 * (or only to the library's own modules) and may change in any release.
 */
package dev.ledger.core.internal.io;
