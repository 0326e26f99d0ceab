package dev.levee.gateway.cache;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * Finds an earlier request that asked the same thing in other words (opt-in per feature; used
 * at T2 and for stale-if-error, issue 4).
 *
 * <p>It is an index over the {@link ResponseCache}, not a second store of answers: an entry is
 * the embedding of a request's last user turn and the {@link CacheKey} under which its answer
 * was stored. {@link #lookup} returns the key of the most similar entry whose cosine similarity
 * is at least {@link Config#threshold()} (default 0.95); the caller then looks that key up in
 * the response cache (fresh for T2, stale too for stale-if-error). Entries whose answer has
 * gone stay until pushed out; pass a predicate to skip them.
 *
 * <p>Entries are partitioned by {@link SemanticQuery} tenant, model and context: nothing is ever
 * compared across tenants, models, or requests that differ in anything but the last question.
 *
 * <p>Memory: each partition keeps its newest {@link Config#maxEntriesPerPartition()} entries
 * (default 1,000); all partitions together hold at most about {@link Config#maxEntries()}
 * (default 20,000; ~1.6 KB each with 384-dimension embeddings, so ~32 MB), whole partitions
 * being evicted least-recently-used first. A partition's room grows with its entries (less than
 * twice as many slots as entries), so many small partitions — a client changing its system prompt
 * with every request — hold no more than a few large ones. Lookup cost: one embedding plus a linear scan of one
 * partition.
 *
 * <p>Thread-safe: embeddings are computed outside any lock; each partition has its own lock.
 */
public final class SemanticCache {

  /**
   * Settings; immutable.
   *
   * @param threshold the least cosine similarity that counts as the same question, in (0, 1]
   *     (default 0.95, issue 4)
   * @param maxEntriesPerPartition newest entries kept per partition (default 1,000)
   * @param maxEntries about the most entries kept over all partitions (default 20,000)
   */
  public record Config(double threshold, int maxEntriesPerPartition, long maxEntries) {

    /** 0.95, 1,000, 20,000. */
    public static final Config DEFAULT = new Config(0.95, 1_000, 20_000);

    public Config {
      if (!(threshold > 0 && threshold <= 1)) throw new IllegalArgumentException("threshold must be in (0, 1], was " + threshold);
      if (maxEntriesPerPartition < 1) throw new IllegalArgumentException("max entries per partition must be positive");
      if (maxEntries < 1) throw new IllegalArgumentException("max entries must be positive");
    }
  }

  /**
   * A similar earlier request.
   *
   * @param key where its answer is in the {@link ResponseCache}
   * @param similarity cosine similarity to the query, at least the threshold
   * @param text the earlier request's last user turn
   */
  public record Match(CacheKey key, double similarity, String text) {}

  private record Partition(String tenant, String model, String context) {}

  private final TextEmbedder embedder;
  private final Config config;
  private final Cache<Partition, Ring> partitions;

  public SemanticCache(TextEmbedder embedder, Config config) {
    this.embedder = Objects.requireNonNull(embedder, "embedder");
    this.config = Objects.requireNonNull(config, "config");
    this.partitions = Caffeine.newBuilder()
        .executor(Runnable::run)
        .maximumWeight(config.maxEntries())
        .weigher((Partition partition, Ring ring) -> Math.max(1, ring.size()))
        .build();
  }

  public Config config() {
    return config;
  }

  /** The best match above the threshold in the query's partition, if any. */
  public Optional<Match> lookup(SemanticQuery query) {
    return lookup(query, key -> true);
  }

  /**
   * The best match above the threshold among entries whose key is {@code usable} (e.g. still in
   * the response cache).
   */
  public Optional<Match> lookup(SemanticQuery query, Predicate<CacheKey> usable) {
    return lookup(query, config.threshold(), usable);
  }

  /** As {@link #lookup(SemanticQuery, Predicate)}, with the caller's own cosine threshold. */
  public Optional<Match> lookup(SemanticQuery query, double threshold, Predicate<CacheKey> usable) {
    Ring ring = partitions.getIfPresent(partition(query));
    if (ring == null) {
      return Optional.empty();
    }
    float[] vector = unit(embedder.embed(query.text()));
    return ring.best(vector, threshold, usable);
  }

  /** Remembers that the answer to {@code query} is stored under {@code key}. */
  public void put(SemanticQuery query, CacheKey key) {
    Objects.requireNonNull(key, "key");
    float[] vector = unit(embedder.embed(query.text()));
    Partition partition = partition(query);
    Ring ring = partitions.get(partition, p -> new Ring(config.maxEntriesPerPartition()));
    ring.add(vector, key, query.text());
    partitions.asMap().put(partition, ring); // re-weigh the partition now that it grew
  }

  /** Forgets every entry of {@code tenant}. */
  public void invalidateTenant(String tenant) {
    partitions.asMap().keySet().removeIf(partition -> partition.tenant().equals(tenant));
  }

  /** Entries held over all partitions. */
  public long size() {
    partitions.cleanUp();
    return partitions.asMap().values().stream().mapToLong(Ring::size).sum();
  }

  /** Entry slots allocated over all partitions, used or not (tests: the memory held is about these). */
  long slots() {
    partitions.cleanUp();
    return partitions.asMap().values().stream().mapToLong(Ring::capacity).sum();
  }

  private static Partition partition(SemanticQuery query) {
    return new Partition(query.tenant(), query.model(), query.context());
  }

  private static float[] unit(float[] vector) {
    double norm = 0;
    for (float v : vector) {
      norm += (double) v * v;
    }
    if (norm == 0) {
      return vector.clone();
    }
    float scale = (float) (1 / Math.sqrt(norm));
    float[] out = new float[vector.length];
    for (int i = 0; i < vector.length; i++) {
      out[i] = vector[i] * scale;
    }
    return out;
  }

  /**
   * The newest entries of one partition, oldest overwritten first once full. Its arrays grow by
   * doubling as entries come, so a partition holds room for less than twice its entries.
   */
  private static final class Ring {
    private final int max;
    private float[][] vectors = new float[1][];
    private CacheKey[] keys = new CacheKey[1];
    private String[] texts = new String[1];
    private int next;
    private int size;

    Ring(int max) {
      this.max = max;
    }

    synchronized int size() {
      return size;
    }

    synchronized int capacity() {
      return vectors.length;
    }

    synchronized void add(float[] vector, CacheKey key, String text) {
      for (int i = 0; i < size; i++) {
        if (keys[i].equals(key)) { // the same request again: refresh in place
          vectors[i] = vector;
          texts[i] = text;
          return;
        }
      }
      if (size == vectors.length && size < max) { // not full yet: entries sit in order, the next one at size
        int room = Math.min(max, 2 * size);
        vectors = java.util.Arrays.copyOf(vectors, room);
        keys = java.util.Arrays.copyOf(keys, room);
        texts = java.util.Arrays.copyOf(texts, room);
      }
      vectors[next] = vector;
      keys[next] = key;
      texts[next] = text;
      next = (next + 1) % max;
      size = Math.min(size + 1, max);
    }

    synchronized Optional<Match> best(float[] query, double threshold, Predicate<CacheKey> usable) {
      int bestIndex = -1;
      double bestSimilarity = -2;
      for (int i = 0; i < size; i++) {
        float[] vector = vectors[i];
        if (vector.length != query.length) {
          continue;
        }
        double dot = 0;
        for (int d = 0; d < query.length; d++) {
          dot += vector[d] * query[d];
        }
        if (dot >= threshold && dot > bestSimilarity && usable.test(keys[i])) {
          bestIndex = i;
          bestSimilarity = dot;
        }
      }
      return bestIndex < 0 ? Optional.empty()
          : Optional.of(new Match(keys[bestIndex], Math.min(1.0, bestSimilarity), texts[bestIndex]));
    }
  }
}
