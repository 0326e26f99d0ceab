package dev.levee.anthropic.upstream;

import java.net.URI;
import java.util.Objects;

/**
 * Where and how to reach one upstream API.
 *
 * @param baseUrl e.g. {@code https://api.anthropic.com} (no trailing slash); request paths are appended
 * @param apiKey the key to send; empty to forward the client's own credentials
 */
public record Endpoint(URI baseUrl, String apiKey) {

  public Endpoint {
    Objects.requireNonNull(baseUrl, "baseUrl");
    apiKey = apiKey == null ? "" : apiKey;
  }

  @Override
  public String toString() {
    return "Endpoint[" + baseUrl + (apiKey.isEmpty() ? "" : ", key set") + "]";
  }
}
