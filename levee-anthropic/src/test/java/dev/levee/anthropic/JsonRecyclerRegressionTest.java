package dev.levee.anthropic;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.util.JsonRecyclerPools;
import org.junit.jupiter.api.Test;

/**
 * Issue 11, ten thousand slow streams: Jackson's default buffer recycler lives in a ThreadLocal,
 * so each request's virtual thread kept its own parse and write buffers (~4 KiB of char arrays
 * and more per stream, for the stream's whole life; 10,000 streams ran a 256 MB heap out). The
 * mapper now shares one pool across threads.
 */
class JsonRecyclerRegressionTest {

  @Test
  void buffersAreRecycledThroughOneSharedPoolNotPerThread() throws Exception {
    var pool = Json.MAPPER.getFactory()._getRecyclerPool();
    assertThat(pool).isNotInstanceOf(JsonRecyclerPools.ThreadLocalPool.class);
    Thread parser = Thread.ofVirtual().start(() -> Json.MAPPER.createObjectNode().put("a", 1).toString());
    parser.join();
    assertThat(Json.bytes(Json.MAPPER.readTree("{\"a\":[1,2.50]}"))).asString().isEqualTo("{\"a\":[1,2.50]}");
  }
}
