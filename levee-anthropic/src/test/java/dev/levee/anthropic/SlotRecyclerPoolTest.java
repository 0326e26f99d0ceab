package dev.levee.anthropic;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.util.BufferRecycler;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The mapper's buffer pool without a lock: Jackson's bounded pool is an ArrayBlockingQueue whose
 * one lock every parser and generator of every request took twice (the lock showed in profiles
 * of the JSON path under load). It still keeps at most its size and hands sets back out.
 */
class SlotRecyclerPoolTest {

  @Test
  void aReleasedSetIsHandedOutAgain() {
    SlotRecyclerPool pool = new SlotRecyclerPool(4);
    BufferRecycler first = pool.acquireAndLinkPooled();
    first.releaseToPool();

    assertThat(pool.pooledCount()).isEqualTo(1);
    assertThat(pool.acquireAndLinkPooled()).isSameAs(first);
    assertThat(pool.pooledCount()).isZero();
  }

  @Test
  void keepsAtMostItsSizeAndMakesNewSetsWhenEmpty() {
    SlotRecyclerPool pool = new SlotRecyclerPool(4);
    List<BufferRecycler> inUse = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      inUse.add(pool.acquireAndLinkPooled());
    }
    assertThat(inUse).doesNotHaveDuplicates();

    inUse.forEach(BufferRecycler::releaseToPool);

    assertThat(pool.pooledCount()).isEqualTo(4);
    List<BufferRecycler> again = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      again.add(pool.acquireAndLinkPooled());
    }
    assertThat(again.subList(0, 4)).allMatch(inUse::contains);
    assertThat(inUse).doesNotContain(again.get(4));
  }

  @Test
  void theMapperUsesIt() {
    assertThat(Json.MAPPER.getFactory()._getRecyclerPool()).isInstanceOf(SlotRecyclerPool.class);
  }
}
