package dev.levee.anthropic.stream;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.levee.anthropic.Json;
import dev.levee.anthropic.sse.SseEvent;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * Block index bookkeeping for the attempt now streaming: which client index each upstream block
 * index maps to, which upstream blocks are dropped (a recovery's own thinking), and which upstream
 * block extends the client's open text block. Forgotten when a recovery begins. Not thread-safe.
 */
final class BlockIndices {

  private final Map<Integer, Integer> clientIndex = new HashMap<>();
  private final Set<Integer> dropped = new HashSet<>();
  private Integer extending; // upstream index whose text extends the client's open block
  private int lastUpstream = -1; // the last mapping looked up (a block's deltas come in a row), -1: none
  private int lastClient;

  void map(int upstream, int client) {
    clientIndex.put(upstream, client);
    lastUpstream = -1;
  }

  /** The client index of upstream block {@code upstream}, or -1 when it never started. */
  int client(int upstream) {
    if (upstream != lastUpstream || upstream < 0) {
      Integer client = clientIndex.get(upstream);
      if (client == null) {
        return -1;
      }
      lastUpstream = upstream;
      lastClient = client;
    }
    return lastClient;
  }

  void drop(int upstream) {
    dropped.add(upstream);
  }

  boolean dropped(int upstream) {
    return !dropped.isEmpty() && dropped.contains(upstream);
  }

  /** Upstream block {@code upstream} extends the client's open block {@code client}. */
  void extend(int upstream, int client) {
    map(upstream, client);
    extending = upstream;
  }

  /** Whether upstream block {@code upstream} is the one extending the client's open block. */
  boolean extending(int upstream) {
    return extending != null && extending == upstream;
  }

  /** A new attempt: its indices start afresh. */
  void reset() {
    clientIndex.clear();
    lastUpstream = -1;
    dropped.clear();
    extending = null;
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
