package dev.ledger.registry.collections;

/** A workspace as the {@code workspaces} collection stores it. */
record WorkspaceDoc(String id, String canonicalPath, String displayName, long createdAtMs,
    long lastSeenAtMs) {}
