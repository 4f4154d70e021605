package dev.ledger.core.spi;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;

/**
 * A ledger's state as a backend holds it. The tree is shared and must not be mutated:
 * callers map or copy it before handing it out.
 *
 * @param state the state tree, as written (not upcast)
 * @param revision its revision
 * @param updatedAt when that revision was committed
 * @param stateVersion the state version it was written with (0 for states written before
 *     versions were recorded)
 */
public record StoredState(JsonNode state, long revision, Instant updatedAt, int stateVersion) {}
