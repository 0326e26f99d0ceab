package dev.levee.bench.sidebyside;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.Arrays;
import org.eclipse.jetty.http.HttpException;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpGenerator;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpParser;
import org.eclipse.jetty.http.HttpVersion;
import org.eclipse.jetty.http.MetaData;
import org.eclipse.jetty.util.BufferUtil;

/**
 * One kept-alive client connection of {@code FloorProxy codec}, on its own virtual thread: its
 * requests read with blocking reads (the JDK's poller wakes the thread; no selector, no hand-off
 * per request), parsed by Jetty's {@link HttpParser}, each answer framed by Jetty's {@link
 * HttpGenerator} and written with one gathering write. A measuring device for issue 11: what
 * Jetty's HTTP/1.1 codec costs on the thread-per-connection model of {@code FloorProxy threads}.
 * No limits, deadlines or error answers beyond a 400 that ends the connection.
 */
final class CodecConnection implements HttpParser.RequestHandler {

  /** What forwards a request's body upstream: {@code FloorProxy.forward}. */
  @FunctionalInterface
  interface Forward {
    byte[] forward(byte[] body, int from, int length, FloorProxy.Relay relay) throws IOException;
  }

  /** A request buffer as Jetty's in Levee (2 KiB); headers up to 8 KiB parse across reads. */
  private static final int REQUEST_BUFFER_BYTES = 2048;
  private static final int HEADER_BYTES = 8192;
  private static final int RESPONSE_HEAD_BYTES = 1024;

  private final SocketChannel channel;
  private final Forward forward;
  private final HttpParser parser = new HttpParser(this, HEADER_BYTES);
  private final HttpGenerator generator = new HttpGenerator();
  private final ByteBuffer in = ByteBuffer.allocate(REQUEST_BUFFER_BYTES).flip();
  private byte[] body = new byte[0];
  private int bodyLength;
  private boolean complete;
  private boolean bad;

  CodecConnection(SocketChannel channel, Forward forward) {
    this.channel = channel;
    this.forward = forward;
  }

  /** Serves requests until the client leaves or sends one that cannot be parsed. */
  void serve() {
    try (channel) {
      while (readRequest()) {
        answer();
        if (!generator.isPersistent()) {
          return;
        }
        parser.reset();
        generator.reset();
      }
    } catch (IOException e) {
      // the client left
    }
  }

  /** Parses the next request whole (head and body); false when the connection ends first. */
  private boolean readRequest() throws IOException {
    complete = false;
    bodyLength = 0;
    while (!complete) {
      if (!in.hasRemaining()) {
        in.clear();
        int r = channel.read(in);
        in.flip();
        if (r < 0) {
          return false;
        }
      }
      parser.parseNext(in);
      if (bad) {
        MetaData.Response info = new MetaData.Response(400, null, HttpVersion.HTTP_1_1, HttpFields.EMPTY, 0);
        generator.setPersistent(false);
        generate(info, null, true);
        return false;
      }
    }
    return true;
  }

  private void answer() throws IOException {
    byte[] answer = forward.forward(body, 0, bodyLength, new FloorProxy.Relay() {
      private MetaData.Response head;

      @Override
      public void open() {
        head = response("text/event-stream", -1);
      }

      @Override
      public void data(byte[] b, int length) throws IOException {
        generate(head, ByteBuffer.wrap(b, 0, length), false);
        head = null;
      }

      @Override
      public void end() throws IOException {
        generate(head, null, true);
      }
    });
    if (answer != null) {
      generate(response(FloorProxy.contentType(answer), answer.length), ByteBuffer.wrap(answer), true);
    }
  }

  private static MetaData.Response response(String contentType, long contentLength) {
    return new MetaData.Response(200, null, HttpVersion.HTTP_1_1,
        HttpFields.build().put(HttpHeader.CONTENT_TYPE, contentType), contentLength);
  }

  /** Frames {@code content} (with the head when {@code info} is not null) and writes it in one gathering write. */
  private void generate(MetaData.Response info, ByteBuffer content, boolean last) throws IOException {
    ByteBuffer head = null;
    ByteBuffer chunk = null;
    while (true) {
      switch (generator.generateResponse(info, false, head, chunk, content, last)) {
        case NEED_HEADER -> head = BufferUtil.allocate(RESPONSE_HEAD_BYTES);
        case NEED_CHUNK -> chunk = BufferUtil.allocate(HttpGenerator.CHUNK_SIZE);
        case NEED_CHUNK_TRAILER -> chunk = BufferUtil.allocate(RESPONSE_HEAD_BYTES);
        case FLUSH -> write(head, chunk, content);
        case CONTINUE -> { }
        case SHUTDOWN_OUT -> {
          channel.shutdownOutput();
          return;
        }
        case DONE -> {
          return;
        }
        case NEED_INFO, HEADER_OVERFLOW -> throw new IOException("cannot frame the answer");
      }
    }
  }

  private void write(ByteBuffer... buffers) throws IOException {
    ByteBuffer[] some = Arrays.stream(buffers).filter(b -> b != null && b.hasRemaining()).toArray(ByteBuffer[]::new);
    long left = 0;
    for (ByteBuffer b : some) {
      left += b.remaining();
    }
    while (left > 0) {
      left -= channel.write(some);
    }
  }

  @Override
  public void startRequest(String method, String uri, HttpVersion version) {}

  @Override
  public void parsedHeader(HttpField field) {}

  @Override
  public boolean headerComplete() {
    long length = parser.getContentLength();
    if (length > body.length) {
      body = new byte[(int) length];
    }
    return false;
  }

  @Override
  public boolean content(ByteBuffer content) {
    int n = content.remaining();
    if (bodyLength + n > body.length) {
      body = Arrays.copyOf(body, Math.max(2 * body.length, bodyLength + n));
    }
    content.get(body, bodyLength, n);
    bodyLength += n;
    return false;
  }

  @Override
  public boolean contentComplete() {
    return false;
  }

  @Override
  public boolean messageComplete() {
    complete = true;
    return true;
  }

  @Override
  public void earlyEOF() {}

  @Override
  public void badMessage(HttpException failure) {
    bad = true;
  }
}
