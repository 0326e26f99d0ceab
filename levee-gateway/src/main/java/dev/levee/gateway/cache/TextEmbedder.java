package dev.levee.gateway.cache;

/**
 * Turns text into a vector whose cosine similarity to another says how close their meanings
 * are. The {@link SemanticCache} normalizes what it gets, so vectors need not be unit length;
 * every vector of one embedder must have the same dimension. Implementations must be
 * thread-safe.
 */
@FunctionalInterface
public interface TextEmbedder {

  /** The embedding of {@code text}. */
  float[] embed(String text);

  /** Cosine similarity of two vectors of the same dimension, in [-1, 1]; 0 when either is zero. */
  static double cosine(float[] a, float[] b) {
    if (a.length != b.length) {
      throw new IllegalArgumentException("dimensions differ: " + a.length + " and " + b.length);
    }
    double dot = 0;
    double normA = 0;
    double normB = 0;
    for (int i = 0; i < a.length; i++) {
      dot += (double) a[i] * b[i];
      normA += (double) a[i] * a[i];
      normB += (double) b[i] * b[i];
    }
    return normA == 0 || normB == 0 ? 0 : dot / Math.sqrt(normA * normB);
  }
}
