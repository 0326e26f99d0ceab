package dev.levee.cli.drill;

/**
 * What the gateway answered one drill request.
 *
 * @param second the drill second it was asked in
 * @param status the HTTP status (0 when no response came)
 * @param tier {@code x-levee-tier}, or null
 * @param cache {@code x-levee-cache} ({@code hit}, {@code semantic}, {@code stale}, {@code miss}), or null
 */
record Answer(int second, int status, String tier, String cache) {

  /** Where an answer came from. */
  enum Source { UPSTREAM, CACHE, STATIC, FAILED }

  Source source() {
    if (status != 200) {
      return Source.FAILED;
    }
    if (cache != null && !cache.equals("miss")) {
      return Source.CACHE;
    }
    return "T3".equals(tier) ? Source.STATIC : Source.UPSTREAM;
  }
}
