package dev.levee.gateway.jobs;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The callbacks the job store owes — ended jobs whose feature has a {@code callback-url} and whose
 * {@code callback_state} is {@code pending} — and the claims they are posted under.
 *
 * <p><b>Claiming.</b> A callback is posted only under a claim taken in the store ({@link #claim}),
 * as a job runs only under its own ({@link JobStore#claim}): one UPDATE marks each claimed row with
 * the claimant ({@code callback_claimed_by}) and the end of the claim's lease ({@code
 * callback_claim_until}, epoch ms), and counts the try ({@code callback_attempts}). On PostgreSQL its
 * pick is {@code FOR UPDATE SKIP LOCKED}; on SQLite the single connection makes it the only writer.
 * So senders polling at the same moment — two replicas, or two in one process — never post the same
 * callback at once. A sender that dies mid-delivery keeps its claim until the lease runs out, then
 * any sender claims the callback again and posts it: at least once, once in the usual case.
 *
 * <p><b>Recording.</b> {@link #record} writes a try's outcome only while its claim is current ({@code
 * callback_attempts} still the claim's, the callback still {@code pending}): a try that outlived its
 * lease and was taken over records nothing. A failed try to be tried again gives its claim up and
 * leaves {@code callback_claim_until} at the next try's time, so no sender tries sooner.
 *
 * <p>Thread-safe; each method is one statement. {@link SQLException}s surface as {@link
 * JobStore.StoreException}.
 */
final class OwedCallbacks {

  /**
   * A job whose answer is owed to {@code url}.
   *
   * @param attempts the tries started so far: for a claimed callback, counting the claim's own (1 for
   *     the first), and the claim's token for {@link #record}
   */
  record Callback(Job job, String url, int attempts) {}

  /**
   * Owed and claimable at {@code ?} (epoch ms): unclaimed and not waiting for its next try, or its
   * claim's lease ran out.
   */
  private static final String DUE = "callback_state = 'pending' "
      + "AND (callback_claim_until IS NULL OR callback_claim_until <= ?)";

  /**
   * {@link #pending}'s query; its one parameter is the limit. Its WHERE and ORDER BY are those of the
   * {@code jobs_callbacks_owed} index ({@code V8__owed_callbacks}): keep them together.
   */
  static final String PENDING = "SELECT " + JobStore.COLUMNS + ", callback_url, callback_attempts FROM jobs "
      + "WHERE callback_state = 'pending' ORDER BY finished_at, id LIMIT ?";

  private final Database db;
  private final String claimant;

  /**
   * {@link #claim}'s statement in {@code dialect}; its parameters: claimant, lease end (epoch ms), now
   * (epoch ms), limit, now again. Its pick's WHERE and ORDER BY are those of the {@code
   * jobs_callbacks_owed} index ({@code V8__owed_callbacks}): keep them together.
   */
  static String claimSql(Database.Dialect dialect) {
    String pick = "SELECT id FROM jobs WHERE " + DUE + " ORDER BY finished_at, id LIMIT ?"
        + (dialect == Database.Dialect.POSTGRESQL ? " FOR UPDATE SKIP LOCKED" : "");
    return "UPDATE jobs SET callback_claimed_by = ?, callback_claim_until = ?, "
        + "callback_attempts = callback_attempts + 1 WHERE id IN (" + pick + ") AND " + DUE
        + " RETURNING " + JobStore.COLUMNS + ", callback_url, callback_attempts";
  }

  /** The callbacks owed in {@code db}, claimed under the name {@code claimant} ({@code callback_claimed_by}). */
  OwedCallbacks(Database db, String claimant) {
    this.db = db;
    this.claimant = claimant;
  }

  /**
   * Claims up to {@code max} callbacks due at {@code now}, oldest ended job first, until {@code
   * leaseUntil}: no other claim takes them before then.
   *
   * @return the claimed callbacks, in no particular order ({@link Callback#attempts} counts this try)
   */
  List<Callback> claim(int max, Instant now, Instant leaseUntil) {
    try (Connection c = db.connection(); PreparedStatement s = c.prepareStatement(claimSql(db.dialect()))) {
      s.setString(1, claimant);
      s.setLong(2, leaseUntil.toEpochMilli());
      s.setLong(3, now.toEpochMilli());
      s.setInt(4, max);
      s.setLong(5, now.toEpochMilli());
      return read(s);
    } catch (SQLException e) {
      throw new JobStore.StoreException("cannot claim callbacks", e);
    }
  }

  /**
   * Records the try of {@code claimed}: {@code state} {@code delivered}, {@code failed: …} (given
   * up), or {@code pending} to be tried again from {@code nextTry} (null for the others).
   *
   * @return false when the claim is no longer current (its lease ran out and another claim took the
   *     callback): nothing was recorded
   */
  boolean record(Callback claimed, String state, Instant nextTry) {
    String sql = "UPDATE jobs SET callback_state = ?, callback_claimed_by = NULL, callback_claim_until = ? "
        + "WHERE id = ? AND callback_state = 'pending' AND callback_attempts = ?";
    try (Connection c = db.connection(); PreparedStatement s = c.prepareStatement(sql)) {
      s.setString(1, state);
      if (nextTry == null) {
        s.setNull(2, Types.BIGINT);
      } else {
        s.setLong(2, nextTry.toEpochMilli());
      }
      s.setString(3, claimed.job().id());
      s.setInt(4, claimed.attempts());
      return s.executeUpdate() == 1;
    } catch (SQLException e) {
      throw new JobStore.StoreException("cannot record the callback of " + claimed.job().id(), e);
    }
  }

  /**
   * Up to {@code max} callbacks still owed, claimed or not, oldest ended job first: a look that
   * claims nothing ({@link Callback#attempts}: the tries so far). Post only what {@link #claim} returns.
   */
  List<Callback> pending(int max) {
    try (Connection c = db.connection(); PreparedStatement s = c.prepareStatement(PENDING)) {
      s.setInt(1, max);
      return read(s);
    } catch (SQLException e) {
      throw new JobStore.StoreException("cannot read pending callbacks", e);
    }
  }

  private static List<Callback> read(PreparedStatement s) throws SQLException {
    List<Callback> out = new ArrayList<>();
    try (ResultSet rs = s.executeQuery()) {
      while (rs.next()) {
        out.add(new Callback(JobStore.read(rs), rs.getString("callback_url"), rs.getInt("callback_attempts")));
      }
    }
    return out;
  }
}
