package dev.ledger.core;

/** What has reached stable storage when a write returns. */
public enum Durability {
  /**
   * The default. When {@code commit} returns, the commit record has been forced to the
   * device ({@code fdatasync}), and new files and renames are followed by a {@code force} of
   * their directory: the commit survives a power cut.
   */
  SYNC,

  /**
   * <b>Unsafe: for tests and throwaway data only.</b> No {@code force} is ever issued. Writes
   * are still atomic with respect to other threads and processes and survive a process
   * crash ({@code kill -9}), because the kernel keeps the pages; a power cut or kernel crash
   * can lose acknowledged commits or leave a torn tail, which the next writer cuts.
   */
  UNSAFE_NO_SYNC
}
