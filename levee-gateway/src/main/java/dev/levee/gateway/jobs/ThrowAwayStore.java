package dev.levee.gateway.jobs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The folder of an embedded job store made for one run and removed after it: a fresh folder under
 * the JVM's temp directory ({@code java.io.tmpdir}) for a gateway whose queued work need not
 * outlive it — a demo, a drill, a benchmark, a test. Put {@link #queueSection} (or {@link #folder})
 * in the gateway's config, and {@link #close} this store after the gateway: that deletes the folder
 * and everything in it ({@code levee.db}, its WAL files, {@code levee.lock}).
 *
 * <p>Only the folder this object created is ever deleted. A gateway never deletes its store's
 * folder itself: a configured {@code queue.folder} (default {@code levee-data}) keeps its jobs,
 * batches and idempotency keys across restarts, so whoever made a folder for one run owns its
 * removal (before this type, each demo, drill, benchmark and test gateway left its {@code
 * /tmp/levee-*} folder behind).
 *
 * <p>Thread-safe; {@link #close} is idempotent.
 */
public final class ThrowAwayStore implements AutoCloseable {

  private final Path folder;
  private final AtomicBoolean closed = new AtomicBoolean();

  private ThrowAwayStore(Path folder) {
    this.folder = folder;
  }

  /**
   * Creates a new empty folder under {@code java.io.tmpdir}, named {@code prefix} and a random
   * number ({@link Files#createTempDirectory(String, java.nio.file.attribute.FileAttribute[])}).
   *
   * @throws IOException when the folder cannot be created
   */
  public static ThrowAwayStore create(String prefix) throws IOException {
    return new ThrowAwayStore(Files.createTempDirectory(prefix));
  }

  /** The folder, absolute; {@code queue.folder} of the gateway using it. */
  public Path folder() {
    return folder;
  }

  /**
   * {@code queue: { folder: '<folder>' }} and a line break, for the end of a YAML config (single
   * quotes: a Windows path's backslashes are no escapes there).
   */
  public String queueSection() {
    return "queue: { folder: '" + folder.toString().replace("'", "''") + "' }\n";
  }

  /**
   * Deletes the folder and everything in it; nothing when it is already gone. Call it after the
   * gateway using it closed: a live store would lose its files.
   *
   * @throws UncheckedIOException when something in the folder cannot be deleted (the folder is left
   *     as it is then, and named in the message)
   */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    try {
      Files.walkFileTree(folder, new SimpleFileVisitor<>() { // symbolic links are deleted, never followed
        @Override
        public FileVisitResult visitFile(Path file, BasicFileAttributes attributes) throws IOException {
          Files.deleteIfExists(file);
          return FileVisitResult.CONTINUE;
        }

        @Override
        public FileVisitResult visitFileFailed(Path file, IOException e) throws IOException {
          if (e instanceof NoSuchFileException) {
            return FileVisitResult.CONTINUE;
          }
          throw e;
        }

        @Override
        public FileVisitResult postVisitDirectory(Path directory, IOException e) throws IOException {
          if (e != null) {
            throw e;
          }
          Files.deleteIfExists(directory);
          return FileVisitResult.CONTINUE;
        }
      });
    } catch (NoSuchFileException gone) {
      // deleted already: nothing left behind
    } catch (IOException e) {
      throw new UncheckedIOException("cannot delete the throw-away job store " + folder, e);
    }
  }

  @Override
  public String toString() {
    return "ThrowAwayStore[" + folder + "]";
  }
}
