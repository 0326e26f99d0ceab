package dev.levee.anthropic;

import com.fasterxml.jackson.core.util.BufferRecycler;
import com.fasterxml.jackson.core.util.RecyclerPool;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * Jackson's buffer sets kept for reuse in a fixed array of slots, without a lock: a parser or
 * generator takes any filled slot (compare-and-set to empty) and gives its set back to any empty
 * one; with every slot empty a new set is made, with every slot full the set is dropped. So at
 * most {@code slots} sets are kept however many parsers ran at once.
 *
 * <p>Jackson's own bounded pool is an {@link java.util.concurrent.ArrayBlockingQueue}: one lock,
 * taken twice by each of the several parsers and generators a request runs, by every request —
 * a point where virtual threads queue up. Here each thread starts its search at a slot picked by
 * its id, so concurrent requests seldom touch the same slot. Thread-safe.
 */
final class SlotRecyclerPool implements RecyclerPool<BufferRecycler> {

  private static final long serialVersionUID = 1L;

  private final transient AtomicReferenceArray<BufferRecycler> slots;
  private final int mask;

  /** @param slots how many sets are kept at most; rounded up to a power of two (at least 1) */
  SlotRecyclerPool(int slots) {
    this.slots = new AtomicReferenceArray<>(slots <= 1 ? 1 : Integer.highestOneBit(slots - 1) << 1);
    this.mask = this.slots.length() - 1;
  }

  @Override
  public BufferRecycler acquirePooled() {
    int start = start();
    for (int i = 0; i <= mask; i++) {
      int slot = (start + i) & mask;
      BufferRecycler kept = slots.getPlain(slot);
      if (kept != null && slots.compareAndSet(slot, kept, null)) {
        return kept;
      }
    }
    return new BufferRecycler();
  }

  @Override
  public void releasePooled(BufferRecycler recycler) {
    int start = start();
    for (int i = 0; i <= mask; i++) {
      int slot = (start + i) & mask;
      if (slots.getPlain(slot) == null && slots.compareAndSet(slot, null, recycler)) {
        return;
      }
    }
    // every slot is full: the set is left to the garbage collector
  }

  @Override
  public int pooledCount() {
    int count = 0;
    for (int i = 0; i <= mask; i++) {
      if (slots.get(i) != null) {
        count++;
      }
    }
    return count;
  }

  @Override
  public boolean clear() {
    for (int i = 0; i <= mask; i++) {
      slots.set(i, null);
    }
    return true;
  }

  /** A copy is an empty pool of the same size (the sets themselves are not serializable). */
  private Object readResolve() {
    return new SlotRecyclerPool(mask + 1);
  }

  /** Where the calling thread starts its search: its id, spread (Fibonacci hashing). */
  private int start() {
    return (int) ((Thread.currentThread().threadId() * 0x9E3779B97F4A7C15L) >>> 40) & mask;
  }
}
