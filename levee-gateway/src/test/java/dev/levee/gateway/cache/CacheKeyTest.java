package dev.levee.gateway.cache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.levee.anthropic.Json;
import dev.levee.anthropic.message.MessagesRequest;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

class CacheKeyTest {

  private static final String BASE = """
      {"model":"smart","max_tokens":256,"temperature":0.7,"system":"Be brief.",
       "messages":[{"role":"user","content":"What is a levee?"}]}""";
  private static final Map<String, List<String>> KEY_A = Map.of("x-api-key", List.of("sk-ant-aaa"));

  private static JsonNode json(String text) {
    return Json.tryParse(text);
  }

  /** The key as the request path makes it: one streaming pass over the parsed request's bytes. */
  private static CacheKey key(String body, Map<String, List<String>> headers) {
    return CacheKey.of(request(body), CacheKey.tenantOf(headers), "smart", headers);
  }

  private static MessagesRequest request(String body) {
    try {
      return MessagesRequest.parse(body.getBytes(StandardCharsets.UTF_8));
    } catch (MessagesRequest.InvalidRequestException e) {
      throw new AssertionError(e);
    }
  }

  @ParameterizedTest(name = "[{index}] {1}")
  @CsvSource(delimiter = '|', textBlock = """
      {"max_tokens":256,"model":"smart","messages":[{"content":"What is a levee?","role":"user"}],"system":"Be brief.","temperature":0.7} | key order
      {"model":"smart","max_tokens":256,"temperature":0.70,"system":"Be brief.","messages":[{"role":"user","content":"What is a levee?"}]} | 0.7 and 0.70
      {"model":"smart","max_tokens":256.0,"temperature":7E-1,"system":"Be brief.","messages":[{"role":"user","content":"What is a levee?"}]} | 256 and 256.0, 0.7 and 7E-1
      {"model":"smart","max_tokens":256,"temperature":0.7,"system":"Be brief.","messages":[{"role":"user","content":"What is a levee?"}],"stream":true} | stream
      {"model":"smart","max_tokens":256,"temperature":0.7,"system":"Be brief.","messages":[{"role":"user","content":"What is a levee?"}],"metadata":{"user_id":"u-42"}} | metadata
      {"model":"smart","max_tokens":256,"temperature":0.7,"system":"Be brief.","messages":[{"role":"user","content":"What is a \\u006cevee?"}]} | an escaped letter
      """)
  void theseDoNotSplitTheKey(String variant, String what) {
    assertThat(key(variant, KEY_A)).isEqualTo(key(BASE, KEY_A));
  }

  @ParameterizedTest(name = "[{index}] {1}")
  @CsvSource(delimiter = '|', textBlock = """
      {"model":"smart","max_tokens":256,"temperature":0.7,"system":"Be brief!","messages":[{"role":"user","content":"What is a levee?"}]} | system
      {"model":"smart","max_tokens":256,"temperature":0.7,"system":"Be brief.","messages":[{"role":"user","content":"What is a dam?"}]} | messages
      {"model":"smart","max_tokens":255,"temperature":0.7,"system":"Be brief.","messages":[{"role":"user","content":"What is a levee?"}]} | max_tokens
      {"model":"smart","max_tokens":256,"temperature":0.8,"system":"Be brief.","messages":[{"role":"user","content":"What is a levee?"}]} | temperature
      {"model":"smart","max_tokens":256,"temperature":0.7,"top_p":0.9,"system":"Be brief.","messages":[{"role":"user","content":"What is a levee?"}]} | top_p
      {"model":"smart","max_tokens":256,"temperature":0.7,"top_k":5,"system":"Be brief.","messages":[{"role":"user","content":"What is a levee?"}]} | top_k
      {"model":"smart","max_tokens":256,"temperature":0.7,"stop_sequences":["END"],"system":"Be brief.","messages":[{"role":"user","content":"What is a levee?"}]} | stop_sequences
      {"model":"smart","max_tokens":256,"temperature":0.7,"tools":[{"name":"t","input_schema":{"type":"object"}}],"system":"Be brief.","messages":[{"role":"user","content":"What is a levee?"}]} | tools
      {"model":"smart","max_tokens":256,"temperature":0.7,"tool_choice":{"type":"any"},"system":"Be brief.","messages":[{"role":"user","content":"What is a levee?"}]} | tool_choice
      {"model":"smart","max_tokens":256,"temperature":0.7,"thinking":{"type":"enabled","budget_tokens":1024},"system":"Be brief.","messages":[{"role":"user","content":"What is a levee?"}]} | thinking
      {"model":"smart","max_tokens":256,"temperature":0.7,"output_format":{"type":"json_schema"},"system":"Be brief.","messages":[{"role":"user","content":"What is a levee?"}]} | an unknown field
      {"model":"smart","max_tokens":256,"temperature":0.7,"system":"Be brief.","messages":[{"role":"user","content":"What is a levee?"},{"role":"assistant","content":"A"}]} | one more message
      {"model":"smart","max_tokens":256,"temperature":0.7,"system":"Be brief.","messages":[{"role":"user","content":"What is a levee? "}]} | a trailing space
      """)
  void theseSplitTheKey(String variant, String what) {
    assertThat(key(variant, KEY_A)).isNotEqualTo(key(BASE, KEY_A));
  }

  @ParameterizedTest(name = "[{index}] max_tokens {0} = 1000")
  @CsvSource({"1000.0", "1E3", "1.000e+3"})
  void numbersAreComparedByValue(String maxTokens) {
    String thousand = "{\"model\":\"m\",\"max_tokens\":1000,\"messages\":[]}";

    assertThat(key(thousand.replace("1000", maxTokens), KEY_A)).isEqualTo(key(thousand, KEY_A));
  }

  @Test
  void fieldsNamedLikeIgnoredOnesCountWhenNested() {
    String tool = "{\"model\":\"m\",\"messages\":[],\"tools\":[{\"name\":\"t\",\"input_schema\":{\"type\":\"object\","
        + "\"properties\":{\"metadata\":{\"type\":\"string\"},\"stream\":{\"type\":\"boolean\"}}}}]}";

    assertThat(key(tool, KEY_A)).isNotEqualTo(key(tool.replace("\"string\"", "\"number\""), KEY_A));
    assertThat(key(tool, KEY_A)).isNotEqualTo(key(tool.replace("\"boolean\"", "\"integer\""), KEY_A));
  }

  @Test
  void theModelOrAliasIsPartOfTheKey() {
    CacheKey smart = CacheKey.of(json(BASE), "smart", KEY_A);
    CacheKey fast = CacheKey.of(json(BASE), "fast", KEY_A);

    assertThat(smart.digest()).isNotEqualTo(fast.digest());
    assertThat(fast.model()).isEqualTo("fast");
  }

  @Test
  void betaHeadersCountButNotTheirOrder() {
    CacheKey none = key(BASE, KEY_A);
    CacheKey ab = key(BASE, Map.of("x-api-key", List.of("sk-ant-aaa"), "anthropic-beta", List.of("a-1, b-2")));
    CacheKey ba = key(BASE, Map.of("X-Api-Key", List.of("sk-ant-aaa"), "Anthropic-Beta", List.of("b-2", "a-1")));

    assertThat(ab).isEqualTo(ba).isNotEqualTo(none);
  }

  @Test
  void tenantsNeverShareAKey() {
    CacheKey a = key(BASE, KEY_A);
    CacheKey b = key(BASE, Map.of("x-api-key", List.of("sk-ant-bbb")));
    CacheKey bearerA = key(BASE, Map.of("authorization", List.of("Bearer sk-ant-aaa")));
    CacheKey named = key(BASE, Map.of("x-levee-tenant", List.of("acme")));
    CacheKey keyAndNamed = key(BASE, Map.of("x-api-key", List.of("sk-ant-aaa"), "x-levee-tenant", List.of("acme")));
    CacheKey anonymous = key(BASE, Map.of());

    assertThat(List.of(a, b, named, keyAndNamed, anonymous)).doesNotHaveDuplicates();
    assertThat(bearerA).isEqualTo(a); // the same key, however it is sent
    assertThat(anonymous.tenant()).isEqualTo("anonymous");
    assertThat(named.tenant()).isEqualTo("tenant:acme");
  }

  @Test
  void theApiKeyNeverAppearsInTheKey() {
    CacheKey a = key(BASE, KEY_A);

    assertThat(a.tenant()).startsWith("key:").doesNotContain("sk-ant-aaa").hasSize(4 + 64);
    assertThat(a.toString()).doesNotContain("sk-ant-aaa");
    assertThat(a.digest()).matches("[0-9a-f]{64}");
  }

  @Test
  void aParsedRequestIsKeyedByTheModelItNames() throws Exception {
    MessagesRequest request = MessagesRequest.parse(BASE.getBytes(StandardCharsets.UTF_8));

    assertThat(CacheKey.of(request, KEY_A)).isEqualTo(key(BASE, KEY_A));
  }

  static List<String> bodies() {
    return List.of(
        BASE,
        "{\"messages\":[{\"content\":[{\"type\":\"text\",\"text\":\"a\",\"cache_control\":{\"type\":\"ephemeral\"}}],"
            + "\"role\":\"user\"}],\"model\":\"m\",\"max_tokens\":1}",
        "{\"model\":\"m\",\"z\":1,\"y\":{\"d\":[3,{\"c\":true,\"b\":null,\"a\":false}],\"a\":{}},\"x\":[],"
            + "\"w\":{\"b\":1,\"a\":2,\"b\":3},\"v\":\"\\u00e9\\ud83d\\ude00\\n\\\"q\\\"\u00e8\"}",
        "{\"model\":\"m\",\"n\":[0,-0,0.0,-0.0,1,10,100,1.5e3,12345678901234567890123,-9223372036854775808,"
            + "9223372036854775807,1e-7,2.50,1E+400,-120]}",
        "{\"model\":\"m\",\"stream\":true,\"metadata\":{\"user_id\":\"u\"},\"tools\":[{\"input_schema\":"
            + "{\"properties\":{\"stream\":{},\"model\":{},\"metadata\":{}}},\"name\":\"t\"}]}",
        "{\"model\":\"m\",\"b\":{\"k\":1,\"k\":{\"z\":1,\"a\":2}},\"a\":[[[{\"b\":1,\"a\":[{\"d\":4,\"c\":3}]}]]]}",
        "{ \"model\" : \"m\" ,\n  \"messages\" : [ { \"role\" : \"user\" , \"content\" : \"spaced out\" } ] }",
        "{\"model\":\"m\"}",
        // strings copied as sent (the generator's own escapes) and strings re-encoded (any other), side by side
        "{\"model\":\"m\",\"s\":[\"plain\",\"\",\"\\b\\f\\n\\r\\t\\\"\\\\\",\"\\/\",\"\\u0001\\u001f\\u0041\","
            + "\"\u007f\u2028\u00e9\ud83c\udf0a\",\"a\\nb\\\"c\\\\d \u00e9\\u00e9\",{\"k\\n\":\"v\\t\"}]}");
  }

  /**
   * The streaming pass writes, byte for byte, what writing the parsed tree in canonical order
   * writes: one digest whichever way a key is made (the semantic cache's context keys come from
   * a tree), and entries keyed before the streaming pass (shared through Redis) still found.
   */
  @ParameterizedTest(name = "[{index}] {0}")
  @MethodSource("bodies")
  void theStreamingPassGivesTheTreesDigest(String body) {
    Map<String, List<String>> headers = Map.of("x-api-key", List.of("sk-ant-aaa"), "anthropic-beta", List.of("b-2,a-1"),
        "anthropic-version", List.of("2023-06-01"));

    assertThat(key(body, headers)).isEqualTo(CacheKey.of(json(body), "smart", headers));
  }

  /**
   * Strings are copied as sent when the generator would write them so ({@code
   * CanonicalJson.writeString}), else re-encoded: 3,000 bodies of random strings — plain ASCII, the
   * generator's short escapes, Unicode escapes, escaped slashes, two- to four-byte characters —
   * give the tree's digest, each of them (a fixed seed: a failure repeats).
   */
  @Test
  void randomStringsGiveTheTreesDigest() throws Exception {
    java.util.Random random = new java.util.Random(25);
    String[] pieces = {"a", "Z", " ", "7", "\\n", "\\t", "\\\"", "\\\\", "\\b", "\\f", "\\r", "\\/", "\\u0041",
        "\\u00e9", "\\u0007", "\\ud83c\\udf0a", "\u00e9", "\u20ac", "\u2028", "\u007f", "\ud83c\udf0a", "{", "]", ":", ","};
    Map<String, List<String>> headers = Map.of();
    for (int n = 0; n < 3_000; n++) {
      StringBuilder body = new StringBuilder("{\"model\":\"m\",\"messages\":[");
      for (int s = random.nextInt(4); s >= 0; s--) {
        body.append('"');
        for (int c = random.nextInt(12); c > 0; c--) {
          body.append(pieces[random.nextInt(pieces.length)]);
        }
        body.append(s > 0 ? "\"," : "\"");
      }
      String json = body.append("]}").toString();

      assertThat(CacheKey.of(request(json), "t", "smart", headers)).as(json)
          .isEqualTo(CacheKey.of(json(json), "t", "smart", headers));
    }
  }

  @Test
  void aNestedNameGivenTwiceCountsWithItsLastValue() {
    String twice = "{\"model\":\"m\",\"tool_choice\":{\"type\":\"auto\",\"type\":\"any\"},\"messages\":[]}";

    assertThat(key(twice, KEY_A)).isEqualTo(key(twice.replace("\"type\":\"auto\",", ""), KEY_A))
        .isNotEqualTo(key(twice.replace(",\"type\":\"any\"", ""), KEY_A));
  }

  @Test
  void aBodyNestedBeyondTheLimitsHasNoKey() {
    int arrays = Json.MAX_NESTING_DEPTH - 1; // the body is exactly as deep as allowed; the key's own wrapping is deeper
    String deep = "{\"model\":\"m\",\"x\":" + "[".repeat(arrays) + "]".repeat(arrays) + "}";

    assertThatThrownBy(() -> key(deep, KEY_A)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void aBodyThatIsNotAnObjectIsRefused() {
    assertThatThrownBy(() -> CacheKey.of(json("[1]"), "m", Map.of())).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void keysAreEqualOnlyWhenTenantModelAndDigestAllAre() {
    CacheKey key = new CacheKey("key:aa", "smart", "d1");

    assertThat(key).isEqualTo(new CacheKey("key:aa", "smart", "d1")).hasSameHashCodeAs(new CacheKey("key:aa", "smart", "d1"));
    assertThat(key).isNotEqualTo(new CacheKey("key:bb", "smart", "d1"))
        .isNotEqualTo(new CacheKey("key:aa", "fast", "d1"))
        .isNotEqualTo(new CacheKey("key:aa", "smart", "d2"))
        .isNotEqualTo("key:aa");
  }
}
