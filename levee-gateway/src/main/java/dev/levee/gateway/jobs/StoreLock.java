package dev.levee.gateway.jobs;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One process's hold on the folder of an embedded job store: an exclusive OS lock on {@code
 * levee.lock} beside {@code levee.db}, taken before the store is opened or recovered and kept until
 * {@link #close}. The embedded store belongs to one process: at start-up it queues again every job
 * left {@code running}, which is only right when no other live gateway runs them (two gateways in
 * one directory ran each other's jobs, twice; newcomer trial, session 13).
 *
 * <p>The lock is the operating system's ({@link FileChannel#tryLock}: {@code fcntl} on Linux and
 * macOS), so it dies with its process: a gateway killed with {@code kill -9} leaves the file behind
 * but not the lock, and the next start takes it. The file holds the holder's process id, named in
 * the refusal. Within one JVM the lock file is opened once ({@link FileLock}: closing a second
 * channel on the file can drop the first one's OS lock), so a second store on the same folder in
 * the same process is refused from a table of held folders. Thread-safe.
 */
final class StoreLock implements AutoCloseable {

  /** The lock file's name, beside {@code levee.db}. */
  static final String FILE_NAME = "levee.lock";

  private static final Set<Path> HELD_HERE = ConcurrentHashMap.newKeySet();

  private final Path folder;
  private final FileChannel channel;

  private StoreLock(Path folder, FileChannel channel) {
    this.folder = folder;
    this.channel = channel;
  }

  /**
   * Takes the lock of {@code folder}, which must exist.
   *
   * @throws IllegalStateException when another live process (or another store of this one) holds
   *     it, naming the folder and {@code queue.folder}; or when the file system cannot lock it
   */
  static StoreLock take(Path folder) {
    Path real;
    try {
      real = folder.toRealPath();
    } catch (IOException e) {
      throw new IllegalStateException("cannot lock the job store in " + folder.toAbsolutePath() + ": " + e, e);
    }
    if (!HELD_HERE.add(real)) {
      throw inUse(real, "another gateway in this process");
    }
    try {
      return lock(real);
    } catch (RuntimeException e) {
      HELD_HERE.remove(real);
      throw e;
    }
  }

  private static StoreLock lock(Path folder) {
    Path file = folder.resolve(FILE_NAME);
    FileChannel channel = null;
    try {
      channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
      FileLock lock = channel.tryLock();
      if (lock == null) {
        String holder = holder(channel);
        channel.close();
        throw inUse(folder, holder.isEmpty() ? "another gateway" : "another gateway (process " + holder + ")");
      }
      channel.truncate(0);
      channel.write(ByteBuffer.wrap((ProcessHandle.current().pid() + "\n").getBytes(StandardCharsets.US_ASCII)), 0);
      return new StoreLock(folder, channel);
    } catch (IOException | OverlappingFileLockException e) {
      closeQuietly(channel);
      throw new IllegalStateException("cannot lock the job store in " + folder + " (" + file + "): " + e, e);
    }
  }

  private static IllegalStateException inUse(Path folder, String holder) {
    return new IllegalStateException("the job store in " + folder + " is in use by " + holder
        + ": an embedded store belongs to one gateway process. Stop that gateway, or give this one a folder of its own"
        + " with queue.folder (relative to the current directory; default levee-data), or share a PostgreSQL store"
        + " (queue.store) between replicas");
  }

  /** The process id the holder wrote, or empty when unreadable (a Windows lock bars reading). */
  private static String holder(FileChannel channel) {
    try {
      ByteBuffer bytes = ByteBuffer.allocate(32);
      channel.read(bytes, 0);
      String pid = new String(bytes.array(), 0, bytes.position(), StandardCharsets.US_ASCII).strip();
      return pid.matches("[0-9]{1,19}") ? pid : "";
    } catch (IOException e) {
      return "";
    }
  }

  private static void closeQuietly(FileChannel channel) {
    if (channel != null) {
      try {
        channel.close();
      } catch (IOException ignored) {
        // the lock goes with the channel either way
      }
    }
  }

  /** Releases the lock (the file stays, holding the last holder's id). Idempotent. */
  @Override
  public synchronized void close() {
    if (channel.isOpen()) {
      closeQuietly(channel);
      HELD_HERE.remove(folder);
    }
  }
}
