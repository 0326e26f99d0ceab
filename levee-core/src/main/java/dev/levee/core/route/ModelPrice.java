package dev.levee.core.route;

/**
 * The list price of one model, in US dollars per 1,000 tokens (Anthropic publishes dollars per
 * million tokens: divide by 1,000).
 *
 * @param inputPer1k dollars per 1,000 base input tokens (not cache reads or writes); 0 or more
 * @param outputPer1k dollars per 1,000 output tokens; 0 or more
 * @throws IllegalArgumentException when a price is negative or not finite
 */
public record ModelPrice(double inputPer1k, double outputPer1k) {

  public ModelPrice {
    if (!(inputPer1k >= 0 && outputPer1k >= 0) || Double.isInfinite(inputPer1k) || Double.isInfinite(outputPer1k)) {
      throw new IllegalArgumentException("prices must be finite and >= 0, were " + inputPer1k + " / " + outputPer1k);
    }
  }

  /** A price from Anthropic's per-million-token figures ({@code $3 / MTok} → {@code perMillion(3, 15)}). */
  public static ModelPrice perMillion(double input, double output) {
    return new ModelPrice(input / 1000, output / 1000);
  }

  /** The estimated cost in dollars of {@code inputTokens} input tokens: {@code tokens / 1000 × inputPer1k}. */
  public double inputCost(long inputTokens) {
    return inputTokens / 1000.0 * inputPer1k;
  }
}
