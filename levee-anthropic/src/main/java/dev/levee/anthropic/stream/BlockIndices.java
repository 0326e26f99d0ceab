package dev.levee.anthropic.stream;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.levee.anthropic.Json;
import dev.levee.anthropic.sse.SseEvent;
import java.util.Arrays;
import java.util.BitSet;

/**
 * Block index bookkeeping for the attempt now streaming: which client index each upstream block
 * index maps to, which upstream blocks are dropped (a recovery's own thinking), and which upstream
 * block extends the client's open text block. Forgotten when a recovery begins. Not thread-safe.
 */
final class BlockIndices {

  // client index + 1 of each upstream index (0: never started); upstream indices count up from 0, a
  // few per message: an array, not a map of boxed integers kept for every stream's whole life
  private int[] clientIndex = new int[2];
  private BitSet dropped; // null: none
  private int extending = -1; // upstream index whose text extends the client's open block, -1: none

  void map(int upstream, int client) {
    if (upstream < 0) {
      return; // never looked up: client() answers -1 for it
    }
    if (upstream >= clientIndex.length) {
      clientIndex = Arrays.copyOf(clientIndex, Math.max(upstream + 1, clientIndex.length * 2));
    }
    clientIndex[upstream] = client + 1;
  }

  /** The client index of upstream block {@code upstream}, or -1 when it never started. */
  int client(int upstream) {
    return upstream >= 0 && upstream < clientIndex.length ? clientIndex[upstream] - 1 : -1;
  }

  void drop(int upstream) {
    if (upstream < 0) {
      return; // not an index the API sends: nothing of it is looked up
    }
    if (dropped == null) {
      dropped = new BitSet();
    }
    dropped.set(upstream);
  }

  boolean dropped(int upstream) {
    return dropped != null && upstream >= 0 && dropped.get(upstream);
  }

  /** Upstream block {@code upstream} extends the client's open block {@code client}. */
  void extend(int upstream, int client) {
    map(upstream, client);
    extending = upstream;
  }

  /** Whether upstream block {@code upstream} is the one extending the client's open block. */
  boolean extending(int upstream) {
    return extending >= 0 && extending == upstream;
  }

  /** A new attempt: its indices start afresh. */
  void reset() {
    Arrays.fill(clientIndex, 0);
    dropped = null;
    extending = -1;
  }

  /**
   * The event (read as a tree) with its {@code index} set to {@code index}; the same object when
   * unchanged. Events read by their fields use {@link SseEvent#withIndex}.
   */
  static SseEvent reindex(SseEvent event, JsonNode data, int index) {
    if (data.path("index").asInt() == index) {
      return event;
    }
    ObjectNode copy = ((ObjectNode) data).deepCopy();
    copy.put("index", index);
    return new SseEvent(event.event(), Json.string(copy), copy);
  }
}
