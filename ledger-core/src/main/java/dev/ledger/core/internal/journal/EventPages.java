package dev.ledger.core.internal.journal;

import dev.ledger.core.Cursor;
import dev.ledger.core.Event;
import dev.ledger.core.EventPage;
import dev.ledger.core.spi.CursoredEvent;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Spliterator;
import java.util.Spliterators;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;

/** Pages and streams of events over a {@link RecordSource}, shared by every backend. */
public final class EventPages {
  private EventPages() {}

  /**
   * Reads up to {@code limit} events with sequence above {@code after} from {@code source},
   * which starts at or before the record holding {@code after + 1}. The next cursor carries
   * the position of the record holding the page's last event; an empty page keeps
   * {@code given}. Closes the source.
   */
  public static EventPage page(String root, RecordSource source, long after, Cursor given,
      int limit) {
    try (source) {
      List<Event> events = new ArrayList<>(Math.min(limit, 128));
      PositionedRecord last = null;
      boolean hasMore = false;
      PositionedRecord next;
      scan:
      while ((next = source.next()) != null) {
        for (Event event : next.record().events()) {
          if (event.sequence() <= after) {
            continue;
          }
          if (events.size() == limit) {
            hasMore = true;
            break scan;
          }
          events.add(event);
          last = next;
        }
      }
      if (events.isEmpty()) {
        return new EventPage(List.of(), given, false);
      }
      Event tail = events.get(events.size() - 1);
      return new EventPage(events,
          CursorCodec.encode(root, tail.sequence(), last.segment(), last.offset()), hasMore);
    }
  }

  /**
   * Reads up to {@code limit} events with sequence above {@code after} from {@code source}
   * (which starts at or before the record holding {@code after + 1}), each with the cursor
   * after it: the position of the record holding it. Closes the source.
   */
  public static List<CursoredEvent> cursored(String root, RecordSource source, long after,
      int limit) {
    try (source) {
      List<CursoredEvent> events = new ArrayList<>(Math.min(limit, 128));
      PositionedRecord next;
      while (events.size() < limit && (next = source.next()) != null) {
        for (Event event : next.record().events()) {
          if (event.sequence() <= after) {
            continue;
          }
          if (events.size() == limit) {
            break;
          }
          events.add(new CursoredEvent(event,
              CursorCodec.encode(root, event.sequence(), next.segment(), next.offset())));
        }
      }
      return events;
    }
  }

  /** The events of {@code source} above {@code after}, lazily; closing the stream closes it. */
  public static Stream<Event> stream(RecordSource source, long after) {
    Iterator<Event> events = new Iterator<>() {
      private Iterator<Event> current = List.<Event>of().iterator();
      private boolean done;

      @Override
      public boolean hasNext() {
        while (!current.hasNext()) {
          if (done) {
            return false;
          }
          PositionedRecord next = source.next();
          if (next == null) {
            done = true;
            return false;
          }
          current = next.record().events().stream()
              .filter(e -> e.sequence() > after).iterator();
        }
        return true;
      }

      @Override
      public Event next() {
        if (!hasNext()) {
          throw new NoSuchElementException();
        }
        return current.next();
      }
    };
    return StreamSupport.stream(Spliterators.spliteratorUnknownSize(events,
        Spliterator.ORDERED | Spliterator.NONNULL), false).onClose(source::close);
  }

  /**
   * Whether a record can start a read after {@code after}: it holds event {@code after + 1},
   * or ends exactly at {@code after}. Used to verify a cursor's position hint.
   */
  public static boolean startsReadAfter(CommitRecord record, long after) {
    return record.firstSequence() <= after + 1 && after + 1 <= record.nextSequence();
  }
}
