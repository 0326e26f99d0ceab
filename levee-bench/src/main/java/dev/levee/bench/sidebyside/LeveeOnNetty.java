package dev.levee.bench.sidebyside;

import dev.levee.gateway.Gateway;
import dev.levee.gateway.config.ConfigLoader;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.epoll.EpollEventLoopGroup;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpUtil;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Server;

/**
 * {@code FloorProxy levee-netty}: Levee's whole handler tree (the request guard, the dispatcher,
 * the seven stages) served by Netty's epoll event loops and HTTP/1.1 codec instead of Jetty's
 * connection machinery: each whole request goes to a new virtual thread that calls the gateway's
 * Jetty {@link Handler} with a {@link NettyExchange} — Jetty's request and response interfaces over
 * the Netty channel. A measuring device for issue 11 (what would Levee cost on Netty, measured rather
 * than summed: docs/benchmarks.md, session 24), never a gateway: none of the server's limits that
 * live in Jetty's connector (header and send deadlines, connection limit, disconnect watch by
 * reading) apply, and the gateway's own Jetty listener stays open, unused.
 */
final class LeveeOnNetty {

  private static final int MAX_BODY = 32 << 20;

  private LeveeOnNetty() {}

  /** Starts a gateway with one alias, {@code fast}, on {@code upstream}, behind Netty; announces its port. */
  static AutoCloseable start(URI upstream) throws Exception {
    Path folder = Files.createTempDirectory("levee-netty"); // the Levee process beside it holds ./levee-data
    Gateway gateway = Gateway.start(new ConfigLoader(Map.of("UP", upstream.toString(), "DATA", folder.toString())::get).parse("""
        server: { port: 0, max-connections: 20000, max-concurrent: 20000, max-concurrent-per-tenant: 20000 }
        queue: { folder: "${DATA}" }
        upstreams: { up: { url: "${UP}" } }
        models: { fast: { chain: [up/claude-fast] } }
        """, "levee-netty"));
    Server jetty = jettyOf(gateway);
    Handler handler = jetty.getHandler();
    int loops = Runtime.getRuntime().availableProcessors();
    EventLoopGroup group = new EpollEventLoopGroup(loops);
    Channel listener = new ServerBootstrap()
        .group(group)
        .channel(EpollServerSocketChannel.class)
        .option(ChannelOption.SO_BACKLOG, SlowUpstream.ACCEPT_QUEUE)
        .childOption(ChannelOption.TCP_NODELAY, true)
        .childHandler(new ChannelInitializer<SocketChannel>() {
          @Override
          protected void initChannel(SocketChannel channel) {
            channel.pipeline().addLast(new HttpServerCodec(), new HttpObjectAggregator(MAX_BODY),
                new Dispatch(jetty, handler));
          }
        })
        .bind(new InetSocketAddress("127.0.0.1", 0)).sync().channel();
    FloorProxy.announce(((InetSocketAddress) listener.localAddress()).getPort());
    return () -> {
      listener.close().sync();
      group.shutdownGracefully().sync();
      gateway.close();
    };
  }

  private static Server jettyOf(Gateway gateway) throws ReflectiveOperationException {
    var field = Gateway.class.getDeclaredField("server");
    field.setAccessible(true);
    return (Server) field.get(gateway);
  }

  private static final class Dispatch extends SimpleChannelInboundHandler<FullHttpRequest> {
    private final Server jetty;
    private final Handler handler;
    private volatile NettyExchange inFlight;

    Dispatch(Server jetty, Handler handler) {
      this.jetty = jetty;
      this.handler = handler;
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
      long begin = System.nanoTime();
      byte[] body = ByteBufUtil.getBytes(request.content()); // the aggregator releases the request after this
      NettyExchange exchange = new NettyExchange(ctx, jetty, request.method().name(), request.uri(),
          request.headers(), body, begin, HttpUtil.isKeepAlive(request));
      inFlight = exchange;
      Thread.ofVirtual().start(() -> exchange.run(handler));
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
      NettyExchange exchange = inFlight;
      if (exchange != null) {
        exchange.clientGone();
      }
      ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      ctx.close();
    }
  }
}
