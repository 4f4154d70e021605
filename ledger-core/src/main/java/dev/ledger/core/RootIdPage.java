package dev.ledger.core;

import com.google.common.base.Preconditions;
import java.util.List;

/**
 * One page of root ids read after a {@link RootIdCursor}.
 *
 * @param rootIds the root ids, in sorted order; empty when none sorts after the cursor
 * @param nextCursor the cursor after the last root id of this page; the cursor that was read
 *     when the page is empty
 * @param hasMore whether more root ids followed this page when it was read
 */
public record RootIdPage(List<String> rootIds, RootIdCursor nextCursor, boolean hasMore) {
  /**
   * Copies the list.
   *
   * @param rootIds the root ids, in sorted order; copied
   * @param nextCursor the cursor after the last root id of this page, or the cursor that was
   *     read when the page is empty
   * @param hasMore whether more root ids followed this page when it was read
   * @throws NullPointerException if {@code rootIds}, a root id or {@code nextCursor} is null
   */
  public RootIdPage {
    rootIds = List.copyOf(rootIds);
    Preconditions.checkNotNull(nextCursor, "nextCursor");
  }
}
