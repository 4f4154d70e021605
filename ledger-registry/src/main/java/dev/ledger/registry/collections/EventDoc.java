package dev.ledger.registry.collections;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ledger.registry.RunStatus;

/** A run event as the {@code runEvents} collection stores it. */
record EventDoc(String runId, long sequence, String type, RunStatus from, RunStatus to,
    JsonNode details, long createdAtMs) {}
