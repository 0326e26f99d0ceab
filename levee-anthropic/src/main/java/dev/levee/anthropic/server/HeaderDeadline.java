package dev.levee.anthropic.server;

import dev.levee.anthropic.error.ApiError;
import dev.levee.anthropic.error.RefusalReason;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpParser;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.internal.HttpConnection;
import org.eclipse.jetty.util.Callback;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The header-read deadline: a connection whose request has begun (its first byte arrived) but
 * whose headers are not complete within {@link ServerLimits#headerTimeout()} is answered 408
 * {@code timeout_error} and closed. Jetty's idle timeout alone cannot do this: a client sending
 * one byte every few seconds is never idle (slowloris). Applied at each sweep of the server's
 * {@link ConnectionSweeper} (every quarter of the timeout or more often, at most every second);
 * parsers are read from the sweeping thread without locks, so a connection is cut only when two
 * sweeps in a row saw the same request late (a torn read once answered 408 to a request being
 * answered: the fresh-clone CI run of session 6, a {@code WritePendingException} beside it). A cut
 * comes at most one sweep late.
 *
 * <p>A connection that has sent nothing at all since it was accepted is closed, without a word,
 * once it is older than the timeout (and at least {@link #SILENT_FLOOR}), and counted ({@link
 * SilentConnections}): before, the deadline started at a request's first byte, so a silent socket
 * held one of {@link ServerLimits#maxConnections()} until Jetty's idle timeout (minutes), and a few
 * thousand of them locked out {@code /health}. It is not answered 408 (it once was): it sent no
 * request to answer, and a client that later sends one on it could take that 408 for its answer.
 * A kept-alive connection between requests is left to the idle timeout. As for late headers, a
 * silent connection is closed only when two sweeps in a row saw it silent. Its age is counted on
 * the monotonic clock from the first sweep that saw it (so up to one sweep short): a step of the
 * wall clock, which Jetty's accept time stamp follows, could otherwise cut or spare it.
 *
 * <p>Each 408 is named and heard as the guard's own refusals are ({@link RequestGuard.Lanes}): a
 * {@code request_id} in its body, the lanes' id headers, and one call of their {@link
 * RequestGuard.Refusals} — with no path, as the request never reached the server's handlers.
 * The 408 is the connection's only answer: Jetty, ending the connection, fails the request whose
 * headers it was reading (a 500 on a {@code /badRequest} path, or a 400 for the early end of
 * its headers), and {@link ApiErrorHandler} neither answers nor counts that ({@link #answered}).
 */
final class HeaderDeadline implements ConnectionSweeper.Check {

  private static final Logger LOG = LoggerFactory.getLogger(HeaderDeadline.class);

  private final RequestGuard.Lanes lanes;
  private final long timeoutNanos;
  private final long silentNanos;
  private final ApiError error;
  private final Runnable silentClosed;
  /**
   * The least time a connection is taken for silent: its bytes count once Jetty reads them, and on a
   * loaded server a connection whose request waits in the socket can go unread for a moment (a full
   * test run with a 300 ms header timeout cut such a connection as silent).
   */
  static final Duration SILENT_FLOOR = Duration.ofSeconds(5);

  /** The connection attribute that marks a connection this deadline answered (its value: the 408's request id, or the empty string). */
  static final String ANSWERED = HeaderDeadline.class.getName() + ".answered";

  private static final long CUT = Long.MIN_VALUE; // in suspects: answered 408 at an earlier sweep
  // all the sweeping thread's own; each "...Now" is the sweep under way's, the others the last whole sweep's
  private Map<EndPoint, Long> suspects = Map.of(); // late, by begin time
  private Set<EndPoint> silent = Set.of(); // silent since accepted
  private Map<EndPoint, Long> seenSince = Map.of(); // when a sweep first saw each connection (nanos)
  private Map<EndPoint, Long> lateNow = Map.of();
  private Set<EndPoint> silentNow = Set.of();
  private Map<EndPoint, Long> seenNow = Map.of();
  private long now;
  private int cut;
  private int quiet;

  /**
   * @param lanes how each 408 is named and who hears of it
   * @param silentClosed called once for each silent connection closed
   */
  HeaderDeadline(Duration timeout, RequestGuard.Lanes lanes, Runnable silentClosed) {
    this.silentClosed = silentClosed;
    this.lanes = lanes;
    this.timeoutNanos = timeout.toNanos();
    this.silentNanos = Math.max(timeoutNanos, SILENT_FLOOR.toNanos());
    this.error = new ApiError(408, "timeout_error", "The request headers arrived too slowly (limit "
        + timeout.toMillis() + " ms).").because(RefusalReason.HEADERS_TOO_SLOW);
  }

  @Override
  public void begin(long now) {
    this.now = now;
    cut = 0;
    quiet = 0;
    lateNow = new HashMap<>();
    silentNow = new HashSet<>();
    seenNow = new HashMap<>();
  }

  @Override
  public void check(EndPoint endPoint) {
    if (!(endPoint.getConnection() instanceof HttpConnection http)) {
      return;
    }
    long since = seenSince.getOrDefault(endPoint, now);
    seenNow.put(endPoint, since);
    Long seen = suspects.get(endPoint);
    if (seen != null && seen == CUT) {
      lateNow.put(endPoint, CUT); // answered already, closing: never answered or counted twice
      return;
    }
    long silentFor = silentSinceAccepted(http, now - since);
    if (silentFor > 0 && !silent.contains(endPoint)) {
      silentNow.add(endPoint); // cut at the next sweep if it is still silent
      return;
    }
    if (silentFor > 0) { // silent at two sweeps in a row: no request to answer, closed without a word
      if (!endPoint.isOpen()) {
        return; // the idle timeout closed (and counted) it a moment ago; it is still being removed
      }
      quiet++;
      lateNow.put(endPoint, CUT); // never counted twice while it closes
      silentClosed.run(); // before the close: a client that sees its end sees the count
      endPoint.close();
      return;
    }
    long begin = lateSince(http.getParser(), now);
    if (begin == 0) {
      return;
    }
    if (seen == null || seen != begin) {
      lateNow.put(endPoint, begin); // cut at the next sweep if it is still the same request's headers
      return;
    }
    cut++;
    HttpFields.Mutable headers = HttpFields.build();
    String id = lanes.name(headers);
    http.setAttribute(ANSWERED, id == null ? "" : id); // before the write: Jetty may fail the request as it closes
    endPoint.write(Callback.from(endPoint::close, x -> endPoint.close()), ByteBuffer.wrap(answer(headers, id)));
    lanes.refusals().refused(null, null, begin, id, error);
    lateNow.put(endPoint, CUT);
  }

  @Override
  public void end() {
    suspects = lateNow;
    silent = silentNow;
    seenSince = seenNow;
    if (cut > 0) {
      LOG.info("{} connections sent their request headers too slowly: answered 408 and closed", cut);
    }
    if (quiet > 0) {
      LOG.info("{} connections sent nothing since they were accepted: closed", quiet);
    }
  }

  /**
   * How long, in nanoseconds, {@code http} has been open ({@code age}, since a sweep first saw it)
   * without receiving a byte, when that is longer than the timeout; 0 otherwise (a byte arrived, or
   * a request was served on it).
   */
  private long silentSinceAccepted(HttpConnection http, long age) {
    return http.getBytesIn() == 0 && http.getMessagesIn() == 0 && age > silentNanos ? age : 0;
  }

  /**
   * Whether {@code request}'s connection was answered 408 by a header deadline: Jetty fails the
   * request whose headers it was reading as the connection ends (a loaded full test run counted
   * such a connection twice: its 408, then a 500 on {@code /badRequest}).
   */
  static boolean answered(Request request) {
    return request.getConnectionMetaData().getAttribute(ANSWERED) != null;
  }

  /** The raw 408, with the lanes' id {@code headers} and {@code id} in its body. */
  private byte[] answer(HttpFields headers, String id) {
    byte[] body = error.toBytes(id);
    StringBuilder head = new StringBuilder("HTTP/1.1 408 Request Timeout\r\ncontent-type: application/json\r\n");
    for (HttpField header : headers) {
      head.append(header.getName()).append(": ").append(header.getValue()).append("\r\n");
    }
    head.append("content-length: ").append(body.length).append("\r\nconnection: close\r\n\r\n");
    byte[] headBytes = head.toString().getBytes(StandardCharsets.US_ASCII);
    byte[] answer = new byte[headBytes.length + body.length];
    System.arraycopy(headBytes, 0, answer, 0, headBytes.length);
    System.arraycopy(body, 0, answer, headBytes.length, body.length);
    return answer;
  }

  /**
   * When the request whose headers {@code parser} is reading began, if that is longer ago than the
   * timeout; 0 otherwise, or when the reading is torn (the parser's fields are read without its
   * lock: a begin time of 0 is a parser just reset, whose state may be a newer request's).
   */
  private long lateSince(HttpParser parser, long now) {
    long begin = parser.getBeginNanoTime();
    return begin != 0 && !parser.isStart() && parser.inHeaderState() && now - begin > timeoutNanos ? begin : 0;
  }
}
