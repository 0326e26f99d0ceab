package dev.levee.gateway.jobs;

import dev.levee.core.time.Sleeper;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Objects;

/**
 * This process's hold on its {@code queue.replica-id} in a shared job store: a row naming the id,
 * a random instance id of this process, and the time of its last heartbeat ({@code replica_ids}).
 *
 * <p>{@link JobStore#recoverOwn} takes back at start-up every job {@code running} under the
 * replica id, trusting that nothing else alive claims under it. Two live gateways configured with
 * one id (a copied configuration, a Deployment where a StatefulSet was meant) would each queue the
 * other's running jobs again at start-up, and every such job would run twice (review). So a gateway
 * first takes the id ({@link #acquire}): free, or held by this id's previous process that stopped
 * cleanly ({@link #release} deleted the row), it is taken at once; held by another instance, the
 * gateway's workers wait {@code beatEvery} × 2 (on a thread of their own: the gateway serves
 * meanwhile, {@link JobWorkers#start}) and look again: a holder that beat meanwhile is alive, and
 * the take fails ({@link IllegalStateException}: a misconfiguration the operator must see, rather
 * than a generated id that would silently lose the restart recovery); one that did not is a crashed
 * predecessor, and its hold is taken over. Takes are compare-and-set, so of two gateways
 * starting together with one id only one gets it. The holder renews the row every {@code beatEvery}
 * ({@link #beat}) after its previous heartbeat's work ended (a fixed delay): its beats are {@code
 * beatEvery} plus that work apart, so a wait of two beats sees a live holder whose beat is late by
 * up to a whole {@code beatEvery}, where the 1.5 beats waited before session 13 took over from a
 * holder late by half of one ({@code ReplicaLeaseLateBeatRegressionTest}). A renewal that finds the row another instance's (this gateway could not beat
 * for a while and a new process took the id over) is logged as an error by the caller.
 *
 * <p>Thread-safe; each method is one short statement (or two, in {@link #tryAcquire} and {@link #acquire}).
 */
final class ReplicaLease {

  /**
   * The heartbeats a newcomer waits for a holder's next beat: two, so that a beat late by up to one
   * whole interval (its previous heartbeat's work, a paused process) is still seen.
   */
  static final int BEATS_WAITED = 2;

  private final Database db;
  private final String replicaId;
  private final String instance = JobStore.newId("inst_");

  ReplicaLease(Database db, String replicaId) {
    this.db = Objects.requireNonNull(db, "db");
    this.replicaId = Objects.requireNonNull(replicaId, "replicaId");
  }

  /** The id's holder now: its instance and last beat (epoch ms); null when nobody holds it. */
  private record Holder(String instance, long beatAt) {}

  /** Takes the replica id for this process if nobody holds it; false when another process holds it (see {@link #acquire}). */
  boolean tryAcquire(InstantSource wall) {
    return holder() == null && take(null, wall.instant());
  }

  /**
   * Takes the replica id for this process, waiting {@link #BEATS_WAITED} × {@code beatEvery} when
   * another instance holds it, to tell a crashed predecessor from a live duplicate (see the class doc).
   *
   * @param wall the time written as this process's first beat
   * @param beatEvery the holder's heartbeat interval (a third of {@code queue.lease}, {@link JobWorkers})
   * @param sleeper how the wait is made (the calling thread parks; virtual time in tests)
   * @throws IllegalStateException when another live gateway holds the id
   * @throws InterruptedException when interrupted while waiting
   */
  void acquire(InstantSource wall, Duration beatEvery, Sleeper sleeper) throws InterruptedException {
    Holder seen = holder();
    if (seen != null && !seen.instance().equals(instance)) {
      sleeper.sleep(beatEvery.multipliedBy(BEATS_WAITED));
      Holder now = holder();
      if (now != null && (!now.instance().equals(seen.instance()) || now.beatAt() != seen.beatAt())) {
        throw duplicate();
      }
      seen = now; // the same silent holder: its process is gone; or nobody any more
    }
    if (!take(seen, wall.instant())) {
      throw duplicate(); // another gateway took it between our look and our take
    }
  }

  /** Renews this process's hold; false when the row is no longer this process's. */
  boolean beat(Instant now) {
    try (Connection c = db.connection();
        PreparedStatement s = c.prepareStatement("UPDATE replica_ids SET beat_at = ? WHERE id = ? AND instance = ?")) {
      s.setLong(1, now.toEpochMilli());
      s.setString(2, replicaId);
      s.setString(3, instance);
      return s.executeUpdate() == 1;
    } catch (SQLException e) {
      throw new JobStore.StoreException("cannot renew the hold on replica id " + replicaId, e);
    }
  }

  /** Gives the id up (a clean stop): the next process with it starts without waiting. */
  void release() {
    try (Connection c = db.connection();
        PreparedStatement s = c.prepareStatement("DELETE FROM replica_ids WHERE id = ? AND instance = ?")) {
      s.setString(1, replicaId);
      s.setString(2, instance);
      s.executeUpdate();
    } catch (SQLException e) {
      throw new JobStore.StoreException("cannot release replica id " + replicaId, e);
    }
  }

  private IllegalStateException duplicate() {
    return new IllegalStateException("queue.replica-id " + replicaId + " is held by another live gateway on the "
        + "same job store: replica ids must be unique among running replicas (two with one id would run each "
        + "other's jobs again at start-up); give this gateway its own, e.g. its pod or host name");
  }

  private Holder holder() {
    try (Connection c = db.connection();
        PreparedStatement s = c.prepareStatement("SELECT instance, beat_at FROM replica_ids WHERE id = ?")) {
      s.setString(1, replicaId);
      try (ResultSet r = s.executeQuery()) {
        return r.next() ? new Holder(r.getString(1), r.getLong(2)) : null;
      }
    } catch (SQLException e) {
      throw new JobStore.StoreException("cannot read who holds replica id " + replicaId, e);
    }
  }

  /** Compare-and-set: takes the id from {@code seen} (null: nobody); false when the row changed meanwhile. */
  private boolean take(Holder seen, Instant now) {
    String sql = seen == null
        ? "INSERT INTO replica_ids (instance, beat_at, id) VALUES (?, ?, ?) ON CONFLICT (id) DO NOTHING"
        : "UPDATE replica_ids SET instance = ?, beat_at = ? WHERE id = ? AND instance = ? AND beat_at = ?";
    try (Connection c = db.connection(); PreparedStatement s = c.prepareStatement(sql)) {
      s.setString(1, instance);
      s.setLong(2, now.toEpochMilli());
      s.setString(3, replicaId);
      if (seen != null) {
        s.setString(4, seen.instance());
        s.setLong(5, seen.beatAt());
      }
      return s.executeUpdate() == 1;
    } catch (SQLException e) {
      throw new JobStore.StoreException("cannot take replica id " + replicaId, e);
    }
  }
}
