package dev.levee.bench.sidebyside;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollEventLoopGroup;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.InetSocketAddress;

/**
 * {@code FloorProxy netty} and {@code netty-epoll}: Netty's HTTP/1.1 server (its event loops, one
 * per core, read and parse: {@link HttpServerCodec}, {@link HttpObjectAggregator}) under the model
 * Levee's pipeline needs, a virtual thread per request that may block on its upstream. Each whole
 * request is handed to a new virtual thread, which forwards it ({@code FloorProxy.forward}) and
 * writes the answer back through the channel (Netty hands the write to the connection's event
 * loop). A stream's data is written and flushed per upstream read; the thread waits for a write
 * only while the connection is past Netty's write high-water mark (64 KiB). A measuring device for
 * issue 11 (would a lighter well-kept server library give a floor low enough for the
 * nginx-relative goals? docs/benchmarks.md, session 23), never a gateway: no limits beyond the
 * aggregator's 32 MiB, no error answers. Netty is here at the version Lettuce already brings.
 */
final class NettyFloor {

  private static final int MAX_BODY = 32 << 20;

  private NettyFloor() {}

  /** Listens on 127.0.0.1 (a free port), announces it, and returns what stops it. */
  static AutoCloseable start(CodecConnection.Forward forward, boolean epoll) throws InterruptedException {
    if (epoll && !Epoll.isAvailable()) {
      throw new IllegalStateException("netty-epoll: Netty's native epoll is not available here", Epoll.unavailabilityCause());
    }
    int loops = Runtime.getRuntime().availableProcessors();
    EventLoopGroup group = epoll ? new EpollEventLoopGroup(loops) : new NioEventLoopGroup(loops);
    Channel listener = new ServerBootstrap()
        .group(group)
        .channel(epoll ? EpollServerSocketChannel.class : NioServerSocketChannel.class)
        .option(ChannelOption.SO_BACKLOG, SlowUpstream.ACCEPT_QUEUE)
        .childOption(ChannelOption.TCP_NODELAY, true)
        .childHandler(new ChannelInitializer<SocketChannel>() {
          @Override
          protected void initChannel(SocketChannel channel) {
            channel.pipeline().addLast(new HttpServerCodec(), new HttpObjectAggregator(MAX_BODY), new Handler(forward));
          }
        })
        .bind(new InetSocketAddress("127.0.0.1", 0)).sync().channel();
    FloorProxy.announce(((InetSocketAddress) listener.localAddress()).getPort());
    return () -> {
      listener.close().sync();
      group.shutdownGracefully().sync();
    };
  }

  private static final class Handler extends SimpleChannelInboundHandler<FullHttpRequest> {
    private final CodecConnection.Forward forward;

    Handler(CodecConnection.Forward forward) {
      this.forward = forward;
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
      byte[] body = ByteBufUtil.getBytes(request.content()); // the aggregator releases the request after this
      Thread.ofVirtual().start(() -> answer(ctx, body));
    }

    private void answer(ChannelHandlerContext ctx, byte[] body) {
      try {
        byte[] answer = forward.forward(body, 0, body.length, new FloorProxy.Relay() {
          @Override
          public void open() {
            HttpResponse head = new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK);
            head.headers().set(HttpHeaderNames.CONTENT_TYPE, "text/event-stream")
                .set(HttpHeaderNames.TRANSFER_ENCODING, "chunked");
            ctx.write(head);
          }

          @Override
          public void data(byte[] b, int length) throws IOException {
            ChannelFuture written = ctx.writeAndFlush(new DefaultHttpContent(Unpooled.wrappedBuffer(b, 0, length)));
            if (!ctx.channel().isWritable()) { // past the high-water mark: wait, as Levee's relay does
              await(written);
            }
          }

          @Override
          public void end() throws IOException {
            await(ctx.writeAndFlush(LastHttpContent.EMPTY_LAST_CONTENT));
          }
        });
        if (answer != null) {
          FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK,
              Unpooled.wrappedBuffer(answer));
          response.headers().set(HttpHeaderNames.CONTENT_TYPE, FloorProxy.contentType(answer))
              .setInt(HttpHeaderNames.CONTENT_LENGTH, answer.length);
          ctx.writeAndFlush(response);
        }
      } catch (IOException e) {
        ctx.close();
      }
    }

    private static void await(ChannelFuture written) throws IOException {
      try {
        written.sync();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new InterruptedIOException("interrupted while writing");
      } catch (Exception e) { // sync() rethrows the write's cause as it is, checked or not
        throw new IOException("client write failed", e);
      }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      ctx.close();
    }
  }
}
