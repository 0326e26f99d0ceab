package dev.levee.emulator;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.levee.anthropic.Json;
import java.net.http.HttpResponse;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Regression (tester): a {@code temperature} outside 0.0 to 1.0 (the range the Messages API
 * reference gives, docs.anthropic.com/en/api/messages) or not a number was answered with 200; the
 * API refuses it with 400 {@code invalid_request_error}. Likewise a {@code stop_sequences} that is
 * not a list of strings and a {@code system} that is neither a string nor a list of blocks.
 */
class SamplingParametersRegressionTest extends InstantEmulatorTest {

  @ParameterizedTest
  @ValueSource(strings = {"1.5", "-0.1", "-1", "2", "1e999"})
  void aTemperatureOutsideZeroToOneIsRefused(String temperature) throws Exception {
    Wire.assertInvalidRequest(post("{\"temperature\":" + temperature + "}"), "temperature: range: 0..1");
  }

  @ParameterizedTest
  @ValueSource(strings = {"\"hot\"", "[0.5]", "{}"})
  void aTemperatureThatIsNotANumberIsRefused(String temperature) throws Exception {
    Wire.assertInvalidRequest(post("{\"temperature\":" + temperature + "}"), "temperature: Input should be a valid number");
  }

  @ParameterizedTest
  @ValueSource(strings = {"{\"temperature\":0}", "{\"temperature\":1}", "{\"temperature\":0.7}",
      "{\"temperature\":1.0,\"stream\":true}", "{\"temperature\":null}", "{\"stop_sequences\":[\"END\",\"STOP\"]}",
      "{\"stop_sequences\":[]}", "{\"system\":\"Be brief.\"}",
      "{\"system\":[{\"type\":\"text\",\"text\":\"Be brief.\"}]}"})
  void documentedValuesAreAnswered(String extra) throws Exception {
    HttpResponse<String> answer = post(extra);

    assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "{\"stop_sequences\":\"END\"}           | stop_sequences: Input should be a valid list",
      "{\"stop_sequences\":[\"END\",7]}       | stop_sequences.1: Input should be a valid string",
      "{\"system\":7}                         | system: Input should be a valid string or a list of content blocks",
      "{\"system\":{\"text\":\"Be brief.\"}}  | system: Input should be a valid string or a list of content blocks",
      "{\"system\":[\"Be brief.\"]}           | system.0: Input should be a valid dictionary"})
  void stopSequencesAndSystemOfTheWrongShapeAreRefused(String extra, String message) throws Exception {
    Wire.assertInvalidRequest(post(extra), message);
  }

  /** A healthy Messages body with the fields of {@code extra} added. */
  private HttpResponse<String> post(String extra) throws Exception {
    ObjectNode body = Wire.body("emu-ok", false, "hi");
    body.setAll((ObjectNode) Json.tryParse(extra));
    return wire.post("/v1/messages", body);
  }
}
