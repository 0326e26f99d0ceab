package dev.levee.bench.sidebyside;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.DefaultLastHttpContent;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.eclipse.jetty.http.DateGenerator;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpURI;
import org.eclipse.jetty.io.ByteArrayEndPoint;
import org.eclipse.jetty.io.Connection;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.io.EofException;
import org.eclipse.jetty.server.Components;
import org.eclipse.jetty.server.ConnectionMetaData;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.Context;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpStream;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.Session;
import org.eclipse.jetty.server.TunnelSupport;
import org.eclipse.jetty.util.Attributes;
import org.eclipse.jetty.util.Callback;

/**
 * One request served through Netty to a Jetty {@link Handler} ({@link LeveeOnNetty}): Jetty's
 * {@link Request} over a request Netty has parsed and aggregated, with a {@link Response} that writes
 * through the Netty channel (a whole answer with {@code content-length}, a streamed one chunked).
 * Only what Levee's handlers use; a measuring device.
 */
final class NettyExchange extends Attributes.Mapped implements Request {

  private static final EndPoint NO_END_POINT = new ByteArrayEndPoint();

  private final ChannelHandlerContext ctx;
  private final Server jetty;
  private final String method;
  private final HttpURI uri;
  private final HttpFields headers;
  private final byte[] body;
  private final long begin;
  private final boolean keepAlive;
  private final Out response = new Out();
  private final List<Consumer<Throwable>> failureListeners = new CopyOnWriteArrayList<>();
  private final Meta meta = new Meta();
  private boolean read;

  NettyExchange(ChannelHandlerContext ctx, Server jetty, String method, String uri, HttpHeaders nettyHeaders,
      byte[] body, long begin, boolean keepAlive) {
    this.ctx = ctx;
    this.jetty = jetty;
    this.method = method;
    this.uri = HttpURI.build(uri).asImmutable();
    HttpFields.Mutable fields = HttpFields.build(nettyHeaders.size());
    for (Map.Entry<String, String> h : nettyHeaders) {
      fields.add(h.getKey(), h.getValue());
    }
    this.headers = fields.asImmutable();
    this.body = body;
    this.begin = begin;
    this.keepAlive = keepAlive;
  }

  void run(Handler handler) {
    Callback done = new Callback() {
      @Override
      public void succeeded() {
        if (!response.last) {
          response.write(true, null, Callback.NOOP);
        }
      }

      @Override
      public void failed(Throwable x) {
        if (!response.committed) {
          response.setStatus(500);
          response.write(true, null, Callback.NOOP);
        } else {
          ctx.close();
        }
      }
    };
    try {
      if (!handler.handle(this, response, done)) {
        response.setStatus(404);
        done.succeeded();
      }
    } catch (Throwable t) {
      done.failed(t);
    }
  }

  void clientGone() {
    Throwable gone = new EofException("client gone");
    for (Consumer<Throwable> listener : failureListeners) {
      listener.accept(gone);
    }
  }

  @Override public String getId() { return Integer.toHexString(System.identityHashCode(this)); }
  @Override public Components getComponents() { throw new UnsupportedOperationException("getComponents"); }
  @Override public ConnectionMetaData getConnectionMetaData() { return meta; }
  @Override public String getMethod() { return method; }
  @Override public HttpURI getHttpURI() { return uri; }
  @Override public Context getContext() { return jetty.getContext(); }
  @Override public HttpFields getHeaders() { return headers; }
  @Override public void demand(Runnable demandCallback) { demandCallback.run(); }
  @Override public HttpFields getTrailers() { return null; }
  @Override public long getBeginNanoTime() { return begin; }
  @Override public long getHeadersNanoTime() { return begin; }
  @Override public boolean isSecure() { return false; }
  @Override public long getLength() { return body.length; }

  @Override
  public Content.Chunk read() {
    if (read) {
      return Content.Chunk.EOF;
    }
    read = true;
    return Content.Chunk.from(ByteBuffer.wrap(body), true);
  }

  @Override public boolean consumeAvailable() { read = true; return true; }
  @Override public void fail(Throwable failure) { }
  @Override public void addIdleTimeoutListener(Predicate<TimeoutException> onIdleTimeout) { }
  @Override public void addFailureListener(Consumer<Throwable> onFailure) { failureListeners.add(onFailure); }
  @Override public TunnelSupport getTunnelSupport() { return null; }
  @Override public void addHttpStreamWrapper(Function<HttpStream, HttpStream> wrapper) { }
  @Override public Session getSession(boolean create) { return null; }

  private final class Out implements Response {
    private final HttpFields.Mutable fields = HttpFields.build();
    private int status = 200;
    private boolean committed;
    private boolean last;
    private boolean chunked;

    @Override public Request getRequest() { return NettyExchange.this; }
    @Override public int getStatus() { return status; }
    @Override public void setStatus(int code) { status = code; }
    @Override public HttpFields.Mutable getHeaders() { return fields; }
    @Override public Supplier<HttpFields> getTrailersSupplier() { return null; }
    @Override public void setTrailersSupplier(Supplier<HttpFields> trailers) { }
    @Override public boolean isCommitted() { return committed; }
    @Override public boolean hasLastWrite() { return last; }
    @Override public boolean isCompletedSuccessfully() { return last; }

    @Override
    public void reset() {
      if (committed) {
        throw new IllegalStateException("committed");
      }
      fields.clear();
      status = 200;
    }

    @Override
    public CompletableFuture<Void> writeInterim(int code, HttpFields interim) {
      return CompletableFuture.completedFuture(null);
    }

    @Override
    public void write(boolean lastWrite, ByteBuffer content, Callback callback) {
      if (last) {
        callback.failed(new IllegalStateException("written after the last write"));
        return;
      }
      last = lastWrite;
      boolean close = !keepAlive || fields.contains(HttpHeader.CONNECTION, "close");
      Object message;
      if (!committed) {
        committed = true;
        HttpResponseStatus code = HttpResponseStatus.valueOf(status);
        if (lastWrite && !fields.contains(HttpHeader.CONTENT_LENGTH)) {
          fields.put(HttpHeader.CONTENT_LENGTH, content == null ? 0 : content.remaining());
        }
        chunked = !fields.contains(HttpHeader.CONTENT_LENGTH);
        if (chunked) {
          fields.put(HttpHeader.TRANSFER_ENCODING, "chunked");
        }
        HttpResponse head = lastWrite
            ? new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, code, wrap(content))
            : new DefaultHttpResponse(HttpVersion.HTTP_1_1, code);
        HttpHeaders out = head.headers();
        for (HttpField field : fields) {
          out.add(field.getName(), field.getValue());
        }
        out.set("date", DateGenerator.formatDate(System.currentTimeMillis()));
        if (lastWrite) {
          message = head;
        } else {
          ctx.write(head);
          message = content == null ? null : new DefaultHttpContent(wrap(content));
        }
      } else {
        message = lastWrite ? new DefaultLastHttpContent(wrap(content))
            : new DefaultHttpContent(wrap(content));
      }
      if (message == null) {
        ctx.flush();
        callback.succeeded();
        return;
      }
      var written = ctx.writeAndFlush(message);
      written.addListener(f -> {
        if (f.isSuccess()) {
          callback.succeeded();
        } else {
          callback.failed(f.cause());
        }
      });
      if (lastWrite && close) {
        written.addListener(ChannelFutureListener.CLOSE);
      }
    }
  }

  private static ByteBuf wrap(ByteBuffer buffer) {
    return buffer == null || !buffer.hasRemaining() ? Unpooled.EMPTY_BUFFER : Unpooled.wrappedBuffer(buffer);
  }

  private final class Meta extends Attributes.Mapped implements ConnectionMetaData {
    private final Connection connection = new NoConnection();

    @Override public String getId() { return ctx.channel().id().asShortText(); }
    @Override public HttpConfiguration getHttpConfiguration() { return new HttpConfiguration(); }
    @Override public org.eclipse.jetty.http.HttpVersion getHttpVersion() { return org.eclipse.jetty.http.HttpVersion.HTTP_1_1; }
    @Override public String getProtocol() { return "HTTP/1.1"; }
    @Override public Connection getConnection() { return connection; }
    @Override public Connector getConnector() { return jetty.getConnectors()[0]; }
    @Override public boolean isPersistent() { return keepAlive; }
    @Override public SocketAddress getRemoteSocketAddress() { return ctx.channel().remoteAddress(); }
    @Override public SocketAddress getLocalSocketAddress() { return ctx.channel().localAddress(); }
  }

  /** The connection's stand-in: an end point with nothing to read, so the disconnect watch waits (Netty's inactive event tells instead). */
  private static final class NoConnection implements Connection {
    @Override public void addEventListener(java.util.EventListener listener) { }
    @Override public void removeEventListener(java.util.EventListener listener) { }
    @Override public void onOpen() { }
    @Override public void onClose(Throwable cause) { }
    @Override public EndPoint getEndPoint() { return NO_END_POINT; }
    @Override public void close() { }
    @Override public boolean onIdleExpired(TimeoutException timeoutException) { return false; }
    @Override public long getMessagesIn() { return 0; }
    @Override public long getMessagesOut() { return 0; }
    @Override public long getBytesIn() { return 0; }
    @Override public long getBytesOut() { return 0; }
    @Override public long getCreatedTimeStamp() { return 0; }
  }
}
