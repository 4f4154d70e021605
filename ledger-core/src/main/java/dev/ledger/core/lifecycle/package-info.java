/**
 * Guarded state machines: {@link dev.ledger.core.lifecycle.Lifecycle} declares the states of a
 * thing (a run, an operation, a task), the transitions allowed between them, the terminal
 * states and the timestamps stamped on entering states; it checks a transition and says what
 * to stamp, and describes it as a {@code status_changed} event. It keeps no state of its own,
 * so it serves a ledger's state, a collection's documents or any record alike.
 */
package dev.ledger.core.lifecycle;
