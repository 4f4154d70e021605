package dev.ledger.registry.collections;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ledger.collections.Key;
import dev.ledger.collections.Query;
import dev.ledger.collections.View;
import dev.ledger.registry.RunFilters;
import dev.ledger.registry.RunStatus;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NavigableSet;
import java.util.Objects;
import java.util.PriorityQueue;
import java.util.TreeSet;

/**
 * The registry's ordered index, in memory: runs by ({@code updatedAtMs} descending, id
 * descending), overall and per status, and lineages by the newest {@code updatedAtMs} of
 * their attempts. It describes the partition at one revision. This object's commits move it
 * forward ({@link #committed}); a read that finds the partition at another revision (another
 * writer committed) rebuilds it from the partition, once per such change. A listing by a
 * status set then walks only the runs of those statuses, newest first, and stops at the limit:
 * it costs what it returns (plus the runs skipped by the other filters), not the registry's
 * size. Thread-safe (one monitor).
 */
final class RunOrder {
  /** A run's place in the order, with the fields the listing filters test. */
  record Entry(long updatedAtMs, String id, RunStatus status, String workspaceId,
      String binding, String pipeline, String firstRunId) {
    static Entry of(RunDoc doc) {
      return new Entry(doc.updatedAtMs(), doc.id(), doc.status(), doc.workspaceId(),
          doc.binding(), doc.pipeline(), doc.firstRunId());
    }

    /** The entry of a stored run's {@link #FIELDS}, as {@link RunTrees#doc} reads them. */
    static Entry of(JsonNode fields) {
      return new Entry(fields.path(RunTrees.UPDATED_AT_MS).asLong(), RunTrees.text(fields, "id"),
          RunTrees.status(fields), RunTrees.text(fields, "workspaceId"),
          RunTrees.text(fields, "binding"), RunTrees.text(fields, "pipeline"),
          RunTrees.text(fields, "firstRunId"));
    }

    /** The fields of a stored run an entry is made of. */
    static final List<String> FIELDS = List.of(RunTrees.UPDATED_AT_MS, "id", RunTrees.STATUS,
        "workspaceId", "binding", "pipeline", "firstRunId");

    boolean matches(RunFilters filters) {
      return (filters.statuses().isEmpty() || filters.statuses().contains(status))
          && (filters.workspaceId() == null || filters.workspaceId().equals(workspaceId))
          && (filters.binding() == null || filters.binding().equals(binding))
          && (filters.pipeline() == null || filters.pipeline().equals(pipeline))
          && (filters.firstRunId() == null || filters.firstRunId().equals(firstRunId));
    }
  }

  /** A lineage's place in the order. */
  record LineageHead(long updatedAtMs, String firstRunId) {}

  // Written out rather than composed (comparingLong().reversed().thenComparing()): a rebuild
  // of 100,000 runs compares ~5 million times, and the composed chain cost a third of it.
  static final Comparator<Entry> NEWEST_FIRST = (a, b) -> {
    int c = Long.compare(b.updatedAtMs(), a.updatedAtMs());
    return c != 0 ? c : b.id().compareTo(a.id());
  };
  private static final Comparator<LineageHead> LINEAGE_NEWEST_FIRST = (a, b) -> {
    int c = Long.compare(b.updatedAtMs(), a.updatedAtMs());
    return c != 0 ? c : b.firstRunId().compareTo(a.firstRunId());
  };

  private long revision = -1;
  private final Map<String, Entry> byId = new HashMap<>();
  private final NavigableSet<Entry> all = new TreeSet<>(NEWEST_FIRST);
  private final Map<RunStatus, NavigableSet<Entry>> byStatus = new EnumMap<>(RunStatus.class);
  private final Map<String, NavigableSet<Entry>> byLineage = new HashMap<>();
  private final NavigableSet<LineageHead> lineages = new TreeSet<>(LINEAGE_NEWEST_FIRST);

  /** Makes this index describe {@code view}'s revision, rebuilding it if needed. */
  synchronized Snapshot current(View view) {
    if (view.revision() != revision) {
      clear();
      // Only the entry's fields: a cold-opened partition keeps its runs as bytes.
      CollectionRunRegistry.runs(view).project(Entry.FIELDS, fields -> put(Entry.of(fields)));
      revision = view.revision();
    }
    return new Snapshot(this);
  }

  /**
   * This object committed {@code doc} in a transaction that read {@code readRevision} and wrote
   * the next one. Applied only when the index is at the revision the transaction read;
   * otherwise the next read rebuilds or has already.
   */
  synchronized void committed(long readRevision, RunDoc doc, boolean wrote) {
    if (wrote && revision == readRevision) {
      put(doc);
      revision = readRevision + 1;
    }
  }

  private void clear() {
    byId.clear();
    all.clear();
    byStatus.clear();
    byLineage.clear();
    lineages.clear();
  }

  private void put(RunDoc doc) {
    put(Entry.of(doc));
  }

  private void put(Entry entry) {
    Entry old = byId.put(entry.id(), entry);
    if (old != null) {
      all.remove(old);
      byStatus.get(old.status()).remove(old);
      NavigableSet<Entry> attempts = byLineage.get(old.firstRunId());
      lineages.remove(new LineageHead(attempts.first().updatedAtMs(), old.firstRunId()));
      attempts.remove(old);
      if (!attempts.isEmpty()) {
        lineages.add(new LineageHead(attempts.first().updatedAtMs(), old.firstRunId()));
      } else {
        byLineage.remove(old.firstRunId());
      }
    }
    all.add(entry);
    byStatus.computeIfAbsent(entry.status(), s -> new TreeSet<>(NEWEST_FIRST)).add(entry);
    NavigableSet<Entry> attempts = byLineage.get(entry.firstRunId());
    if (attempts == null) {
      attempts = new TreeSet<>(NEWEST_FIRST);
      byLineage.put(entry.firstRunId(), attempts);
    } else {
      lineages.remove(new LineageHead(attempts.first().updatedAtMs(), entry.firstRunId()));
    }
    attempts.add(entry);
    lineages.add(new LineageHead(attempts.first().updatedAtMs(), entry.firstRunId()));
  }

  /** Reads of the index made while the caller's view holds it at the view's revision. */
  static final class Snapshot {
    private final RunOrder order;

    private Snapshot(RunOrder order) {
      this.order = order;
    }

    /** The first {@code limit} runs matching {@code filters}, newest first, read from view. */
    List<RunDoc> newestFirst(View view, RunFilters filters, int limit) {
      List<String> ids = new ArrayList<>();
      synchronized (order) {
        Iterator<Entry> it = order.iterator(filters);
        while (it.hasNext() && ids.size() < limit) {
          Entry entry = it.next();
          if (entry.matches(filters)) {
            ids.add(entry.id());
          }
        }
      }
      List<RunDoc> out = new ArrayList<>(ids.size());
      for (String id : ids) {
        CollectionRunRegistry.runs(view).get(Key.of(id)).map(RunTrees::doc)
            .ifPresent(out::add);
      }
      return out;
    }

    /** The newest {@code limit} lineages. */
    List<LineageHead> recentLineages(int limit) {
      synchronized (order) {
        List<LineageHead> out = new ArrayList<>(limit);
        for (LineageHead head : order.lineages) {
          if (out.size() == limit) {
            break;
          }
          out.add(head);
        }
        return out;
      }
    }
  }

  /** Runs newest first: all of them, or a merge of the sets of the asked statuses. */
  private Iterator<Entry> iterator(RunFilters filters) {
    if (filters.statuses().isEmpty()) {
      return all.iterator();
    }
    List<Iterator<Entry>> sources = new ArrayList<>();
    for (RunStatus status : filters.statuses()) {
      NavigableSet<Entry> set = byStatus.get(status);
      if (set != null && !set.isEmpty()) {
        sources.add(set.iterator());
      }
    }
    if (sources.size() == 1) {
      return sources.get(0);
    }
    return new Merge(sources);
  }

  /** A k-way merge of newest-first iterators. */
  private static final class Merge implements Iterator<Entry> {
    private record Head(Entry entry, Iterator<Entry> rest) {}

    private final PriorityQueue<Head> heads = new PriorityQueue<>(
        (a, b) -> NEWEST_FIRST.compare(a.entry(), b.entry()));

    Merge(List<Iterator<Entry>> sources) {
      for (Iterator<Entry> source : sources) {
        if (source.hasNext()) {
          heads.add(new Head(source.next(), source));
        }
      }
    }

    @Override
    public boolean hasNext() {
      return !heads.isEmpty();
    }

    @Override
    public Entry next() {
      Head head = Objects.requireNonNull(heads.poll(), "no more runs");
      if (head.rest().hasNext()) {
        heads.add(new Head(head.rest().next(), head.rest()));
      }
      return head.entry();
    }
  }

  /** Builds the Query of the filters, for listings that do not need the order. */
  static Query.Builder query(RunFilters filters) {
    Query.Builder query = Query.builder();
    if (!filters.statuses().isEmpty()) {
      query.within("status", new ArrayList<>(filters.statuses()));
    }
    if (filters.workspaceId() != null) {
      query.exact("workspaceId", filters.workspaceId());
    }
    if (filters.binding() != null) {
      query.exact("binding", filters.binding());
    }
    if (filters.pipeline() != null) {
      query.exact("pipeline", filters.pipeline());
    }
    if (filters.firstRunId() != null) {
      query.exact("firstRunId", filters.firstRunId());
    }
    return query;
  }
}
