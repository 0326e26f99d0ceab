package dev.levee.gateway.batches;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.levee.anthropic.Json;
import dev.levee.anthropic.error.ApiError;
import dev.levee.gateway.jobs.Job;
import java.time.Instant;

/**
 * The API's shapes for batches: the {@code message_batch} object and one results line. Source:
 * the Message Batches API reference (Create / Retrieve / Results).
 */
final class BatchJson {

  private BatchJson() {}

  /** A {@code message_batch} object; {@code resultsUrl} is set once it has ended. */
  static ObjectNode batch(Batch b, String resultsUrl) {
    ObjectNode out = Json.MAPPER.createObjectNode();
    out.put("id", b.id());
    out.put("type", "message_batch");
    out.put("processing_status", b.processingStatus());
    ObjectNode counts = out.putObject("request_counts");
    counts.put("processing", b.counts().processing());
    counts.put("succeeded", b.counts().succeeded());
    counts.put("errored", b.counts().errored());
    counts.put("canceled", b.counts().canceled());
    counts.put("expired", b.counts().expired());
    time(out, "ended_at", b.endedAt());
    time(out, "created_at", b.createdAt());
    time(out, "expires_at", b.expiresAt());
    out.putNull("archived_at");
    time(out, "cancel_initiated_at", b.cancelInitiatedAt());
    if (b.endedAt() != null) {
      out.put("results_url", resultsUrl);
    } else {
      out.putNull("results_url");
    }
    return out;
  }

  /** One JSONL line of results: {@code {"custom_id", "result": {"type": succeeded|errored|canceled|expired, …}}}. */
  static ObjectNode resultLine(Job job) {
    ObjectNode line = Json.MAPPER.createObjectNode();
    line.put("custom_id", job.customId());
    ObjectNode result = line.putObject("result");
    switch (job.state()) {
      case SUCCEEDED -> {
        result.put("type", "succeeded");
        result.set("message", Json.tryParse(job.result().body()));
      }
      case FAILED -> {
        result.put("type", "errored");
        JsonNode body = Json.tryParse(job.result().body());
        if (body != null && body.path("type").asText().equals("error") && body.path("error").isObject()) {
          result.set("error", body);
        } else {
          ApiError error = ApiError.parse(job.result().status(), job.result().body());
          result.set("error", error.toJson(null));
        }
      }
      case CANCELLED -> result.put("type", "canceled");
      case EXPIRED -> result.put("type", "expired");
      case QUEUED, RUNNING -> throw new IllegalStateException("results are read only once a batch has ended");
    }
    return line;
  }

  private static void time(ObjectNode out, String field, Instant at) {
    if (at == null) {
      out.putNull(field);
    } else {
      out.put(field, at.toString());
    }
  }
}
