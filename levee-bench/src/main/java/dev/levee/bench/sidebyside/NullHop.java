package dev.levee.bench.sidebyside;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * nginx as a plain reverse proxy, the "null hop": kept-alive upstream connections, no buffering
 * (so SSE flows as it comes), no access log, as many workers as cores. Started from the Debian
 * package's {@code nginx} binary with a private prefix; absent when nginx is not installed.
 */
final class NullHop implements AutoCloseable {

  private final Process process;
  private final Thread stopOnExit = new Thread(this::stop, "nginx-stop");
  private final URI baseUrl;
  private final Path dir;

  private NullHop(Process process, URI baseUrl, Path dir) {
    this.process = process;
    this.baseUrl = baseUrl;
    this.dir = dir;
    Runtime.getRuntime().addShutdownHook(stopOnExit); // Ctrl-C or SIGTERM: nginx goes too, not left listening
  }

  static Path binary() {
    for (String candidate : new String[] {"/usr/sbin/nginx", "/usr/bin/nginx", "/usr/local/sbin/nginx"}) {
      if (Files.isExecutable(Path.of(candidate))) {
        return Path.of(candidate);
      }
    }
    return null;
  }

  static NullHop start(Path nginx, URI upstream) throws Exception {
    Path dir = Files.createTempDirectory("levee-null-hop");
    int port;
    try (ServerSocket free = new ServerSocket(0)) {
      port = free.getLocalPort();
    }
    Files.writeString(dir.resolve("nginx.conf"), """
        worker_processes %d;
        daemon off;
        pid %s/nginx.pid;
        error_log %s/error.log warn;
        events { worker_connections 8192; }
        http {
          access_log off;
          client_body_temp_path %s;
          proxy_temp_path %s;
          fastcgi_temp_path %s;
          uwsgi_temp_path %s;
          scgi_temp_path %s;
          upstream up { server %s:%d; keepalive 256; }
          server {
            listen 127.0.0.1:%d backlog=4096;
            location / {
              proxy_pass http://up;
              proxy_http_version 1.1;
              proxy_set_header Connection "";
              proxy_buffering off;
            }
          }
        }
        """.formatted(Runtime.getRuntime().availableProcessors(), dir, dir, dir, dir, dir, dir, dir,
        upstream.getHost(), upstream.getPort(), port));
    Process process = new ProcessBuilder(nginx.toString(), "-e", dir.resolve("error.log").toString(), "-p", dir.toString(),
        "-c", dir.resolve("nginx.conf").toString()).redirectErrorStream(true)
        .redirectOutput(dir.resolve("stdout.log").toFile()).start();
    URI base = URI.create("http://127.0.0.1:" + port);
    for (int i = 0; i < 100; i++) {
      try (Socket probe = new Socket("127.0.0.1", port)) {
        return new NullHop(process, base, dir);
      } catch (IOException notYet) {
        if (!process.isAlive()) {
          throw new IllegalStateException("nginx did not start: " + Files.readString(dir.resolve("error.log")));
        }
        Thread.sleep(50);
      }
    }
    process.destroy();
    throw new IllegalStateException("nginx did not listen on " + port);
  }

  URI baseUrl() {
    return baseUrl;
  }

  long pid() {
    return process.pid();
  }

  private void stop() {
    process.destroy(); // SIGTERM: nginx stops its workers
    try {
      process.waitFor(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public void close() throws Exception {
    Runtime.getRuntime().removeShutdownHook(stopOnExit);
    stop();
    try (var files = Files.walk(dir)) {
      files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
  }
}
