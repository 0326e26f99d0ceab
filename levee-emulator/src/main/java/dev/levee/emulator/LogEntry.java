package dev.levee.emulator;

/**
 * One request the emulator received on {@code /v1/...}, as {@link Emulator#log()} and {@code GET
 * /_emulator/log} report it. Never holds credentials: the API key is neither logged nor stored.
 *
 * @param atMs when it arrived, in ms since the emulator started or was last reset (by the
 *     options' ticker)
 * @param method the HTTP method
 * @param path the path, e.g. {@code /v1/messages}
 * @param query the raw query string (e.g. {@code beta=true}), or null
 * @param model the requested {@code model}, or null when the body had none
 * @param stream whether the body asked for {@code "stream": true}
 * @param action what the emulator did: {@code ok}, an HTTP status ({@code 529}, {@code 429},
 *     {@code 500}, {@code 503}, {@code 400}, {@code 401}, {@code 404}, {@code 413}), {@code
 *     cut@n}, {@code error@n}, {@code stall@n}, {@code malformed@n}, {@code dup}, {@code
 *     slow-ttft@ms}, {@code reset} or {@code hang}
 * @param status the HTTP status sent, or 0 when no response was sent (reset, hang, JSON stall)
 * @param lastRole the role of the last message, or null
 * @param continuation {@code prefill} or {@code no-prefill} when the request continued an earlier
 *     partial answer, else null
 * @param anthropicVersion the {@code anthropic-version} header, or null
 * @param anthropicBeta the {@code anthropic-beta} header (values joined with {@code ,}), or null
 * @param bodySize the request body's size in bytes
 * @param bodySha256 the lower-case hex SHA-256 of the whole request body
 * @param body the request body as UTF-8 text, at most its first 256 KiB
 * @param bodyTruncated whether {@code body} is shorter than the request body
 * @param ttftMs ms from arrival to the first content byte (first content delta of a stream, the
 *     body of a JSON answer), or -1 when none was sent
 * @param clientGoneEarly whether the client went away before the emulator finished its response
 * @param finished whether the emulator is done with the request
 */
public record LogEntry(long atMs, String method, String path, String query, String model, boolean stream,
    String action, int status, String lastRole, String continuation, String anthropicVersion, String anthropicBeta,
    long bodySize, String bodySha256, String body, boolean bodyTruncated, long ttftMs, boolean clientGoneEarly,
    boolean finished) {}
