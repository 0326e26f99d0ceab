package dev.levee.gateway;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.levee.anthropic.Json;
import dev.levee.anthropic.error.ApiError;
import dev.levee.anthropic.error.TransportError;
import dev.levee.anthropic.server.PageQuery;
import dev.levee.anthropic.upstream.Endpoint;
import java.io.IOException;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * {@code GET /v1/models}: the configured aliases first (in configuration order, each marked {@code
 * "(Levee alias: …)"} in its {@code display_name}), then the models the default upstream lists,
 * as one list paged the Models API's way: {@code limit} (default 20, 1 to 1000), {@code after_id}
 * or {@code before_id} (an alias or an upstream model id), {@code data}, {@code has_more}, {@code
 * first_id}, {@code last_id}; one of them repeated or empty, or both cursors, is refused 400 {@code
 * invalid_request_error} ({@link PageQuery}) before any upstream call. Any other query
 * parameter (the SDKs' {@code beta=true}, one a later API version adds) changes nothing Levee
 * lists and goes to the upstream as sent, which judges it; a page within the aliases makes no
 * upstream call, so there it is simply ignored. An upstream model named like an alias is left out
 * (requests for that name go to the alias).
 *
 * <p>When the upstream cannot list (unreachable, 5xx, 408, 429, 529), a page that holds aliases
 * still answers with them, with {@code has_more: false} and {@code x-levee-reason} saying why the
 * upstream's models are missing; a page without any (no alias configured, or past them) gets the
 * upstream's error, or 502 {@code api_error} when it cannot be reached. Its other errors (401, 403,
 * 400 …: the client's) are relayed as they are.
 * Thread-safe.
 */
final class ModelList {


  /**
   * What the client gets: a status, a body, and when it is set, why the upstream's models are
   * missing; or {@code error}, Levee's own error (the caller names it with the exchange's request id).
   */
  record Page(int status, Map<String, List<String>> upstreamHeaders, byte[] body, String reason, ApiError error) {

    Page(int status, Map<String, List<String>> upstreamHeaders, byte[] body, String reason) {
      this(status, upstreamHeaders, body, reason, null);
    }

    static Page of(ApiError error) {
      return new Page(error.status(), Map.of(), null, null, error);
    }
  }

  private final AliasModels aliases;
  private final String upstreamName;
  private final Endpoint upstream;
  private final UpstreamGet get;
  private final ReleaseDates dates;

  ModelList(AliasModels aliases, String upstreamName, Endpoint upstream, UpstreamGet get, ReleaseDates dates) {
    this.aliases = aliases;
    this.upstreamName = upstreamName;
    this.upstream = upstream;
    this.get = get;
    this.dates = dates;
  }

  /**
   * The page for {@code rawQuery} (null: none).
   *
   * @throws InterruptedException when the client went away during the upstream call
   */
  Page page(String rawQuery, Map<String, List<String>> clientHeaders) throws InterruptedException {
    List<String> others = new ArrayList<>();
    Map<String, List<String>> paging = new HashMap<>();
    for (String pair : rawQuery == null || rawQuery.isEmpty() ? new String[0] : rawQuery.split("&")) {
      int eq = pair.indexOf('=');
      String name = decode(eq < 0 ? pair : pair.substring(0, eq));
      if (PageQuery.NAMES.contains(name)) {
        paging.computeIfAbsent(name, n -> new ArrayList<>()).add(eq < 0 ? "" : decode(pair.substring(eq + 1)));
      } else {
        others.add(pair);
      }
    }
    PageQuery asked;
    switch (PageQuery.parse(paging::get)) {
      case PageQuery.Invalid invalid -> {
        return Page.of(invalid.error());
      }
      case PageQuery.Valid valid -> asked = valid.query();
    }
    int limit = asked.limit();
    String after = asked.afterId();
    String before = asked.beforeId();
    List<String> ids = aliases.ids();
    if (before != null) {
      return before(ids, before, limit, others, clientHeaders);
    }
    int start = 0;
    if (after != null) {
      int at = ids.indexOf(after);
      if (at < 0) { // past the aliases: the upstream's page
        Listed listed = list("?" + rawQuery, clientHeaders);
        return listed.failure() != null ? listed.failure() : listOf(List.of(), listed.models(), listed.hasMore(), null);
      }
      start = at + 1;
    }
    List<String> mine = ids.subList(start, Math.min(ids.size(), start + limit));
    if (start + mine.size() < ids.size()) { // the page ends within the aliases
      return listOf(aliasObjects(mine, clientHeaders, true), List.of(), true, null);
    }
    int rest = limit - mine.size();
    Listed listed = list(query(others, "limit", Integer.toString(Math.max(1, rest))), clientHeaders); // 1: is there more?
    if (listed.failure() != null && (listed.missing() == null || mine.isEmpty())) { // nothing of Levee's to list
      return listed.failure();
    }
    if (listed.missing() != null) {
      return listOf(aliasObjects(mine, clientHeaders, false), List.of(), false, listed.missing());
    }
    List<JsonNode> theirs = listed.models();
    boolean more = listed.hasMore() || theirs.size() > rest;
    return listOf(aliasObjects(mine, clientHeaders, true), theirs.subList(0, Math.min(rest, theirs.size())), more, null);
  }

  /** The page right before {@code before}: aliases before an alias; else the upstream's, topped up with the last aliases. */
  private Page before(List<String> ids, String before, int limit, List<String> others,
      Map<String, List<String>> clientHeaders) throws InterruptedException {
    int at = ids.indexOf(before);
    if (at >= 0) {
      int from = Math.max(0, at - limit);
      return listOf(aliasObjects(ids.subList(from, at), clientHeaders, true), List.of(), from > 0, null);
    }
    Listed listed = list(query(others, "before_id", before, "limit", Integer.toString(limit)), clientHeaders);
    if (listed.failure() != null) { // aliases have no place in a page the upstream did not give
      return listed.failure();
    }
    List<JsonNode> theirs = listed.models();
    if (listed.hasMore()) {
      return listOf(List.of(), theirs, true, null);
    }
    int take = Math.min(ids.size(), Math.max(0, limit - theirs.size()));
    int from = ids.size() - take;
    return listOf(aliasObjects(ids.subList(from, ids.size()), clientHeaders, true), theirs, from > 0, null);
  }

  /**
   * What the upstream listed: its models (aliases' names left out) and {@code has_more}; or its
   * answer as a {@code failure} to relay, with {@code missing} saying why when the aliases may
   * still be listed without the upstream's models (it could not list; null: the client's own error).
   */
  private record Listed(List<JsonNode> models, boolean hasMore, String missing, Page failure) {}

  private Listed list(String query, Map<String, List<String>> clientHeaders) throws InterruptedException {
    UpstreamGet.Answer answer;
    try {
      answer = get.get(upstream, "/v1/models" + query, clientHeaders);
    } catch (IOException e) {
      String why = TransportError.describe(e);
      ApiError error = new ApiError(502, "api_error", "the upstream could not be reached: " + why);
      return new Listed(List.of(), false, "upstream models not listed: " + why,
          Page.of(error));
    }
    int status = answer.status();
    JsonNode body = Json.tryParse(answer.body());
    if (status == 200 && body != null && body.path("data").isArray()) {
      dates.learnAll(upstreamName, body.path("data"));
      List<JsonNode> models = new ArrayList<>();
      Set<String> mine = Set.copyOf(aliases.ids());
      body.path("data").forEach(model -> {
        if (!mine.contains(model.path("id").asText())) {
          models.add(model);
        }
      });
      return new Listed(models, body.path("has_more").asBoolean(false), null, null);
    }
    if (status >= 400 && status < 500 && status != 408 && status != 429) { // the client's own error
      return new Listed(List.of(), false, null, new Page(status, answer.headers(), answer.body(), null));
    }
    String type = body == null ? "" : " " + body.path("error").path("type").asText("");
    return new Listed(List.of(), false, "upstream models not listed: " + status + type.stripTrailing(),
        new Page(status, answer.headers(), answer.body(), null));
  }

  private List<JsonNode> aliasObjects(List<String> ids, Map<String, List<String>> clientHeaders, boolean lookUp) {
    List<JsonNode> models = new ArrayList<>(ids.size());
    ids.forEach(id -> aliases.model(id, clientHeaders, lookUp).ifPresent(models::add));
    return models;
  }

  /** A 200 page of {@code mine} then {@code theirs}. */
  private static Page listOf(List<JsonNode> mine, List<JsonNode> theirs, boolean hasMore, String reason) {
    ObjectNode body = Json.MAPPER.createObjectNode();
    ArrayNode data = body.putArray("data");
    data.addAll(mine);
    data.addAll(theirs);
    body.put("has_more", hasMore);
    body.put("first_id", data.isEmpty() ? null : data.get(0).path("id").asText());
    body.put("last_id", data.isEmpty() ? null : data.get(data.size() - 1).path("id").asText());
    return new Page(200, Map.of(), Json.bytes(body), reason);
  }

  /** The query string ({@code ?…}): {@code others} as sent (not re-encoded), then each {@code name, value} pair. */
  private static String query(List<String> others, String... pairs) {
    StringBuilder query = new StringBuilder();
    for (String pair : others) {
      query.append(query.isEmpty() ? '?' : '&').append(pair);
    }
    for (int i = 0; i < pairs.length; i += 2) {
      query.append(query.isEmpty() ? '?' : '&').append(pairs[i]).append('=')
          .append(URLEncoder.encode(pairs[i + 1], StandardCharsets.UTF_8));
    }
    return query.toString();
  }

  private static String decode(String s) {
    try {
      return URLDecoder.decode(s, StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      return s;
    }
  }
}
