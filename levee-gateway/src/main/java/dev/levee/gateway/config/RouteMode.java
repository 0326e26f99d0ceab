package dev.levee.gateway.config;

/**
 * How an alias orders its targets ({@code models.<alias>.route}).
 *
 * <ul>
 *   <li>{@code chain} (default): the chain as written, every request;
 *   <li>{@code score}: per request, by the scoring router (docs/routing.md): the best-scoring
 *       healthy target first, the others as fallbacks; the written chain breaks ties and is the
 *       order whenever routing does not apply (below T0, token counts).
 * </ul>
 */
public enum RouteMode {
  CHAIN,
  SCORE
}
