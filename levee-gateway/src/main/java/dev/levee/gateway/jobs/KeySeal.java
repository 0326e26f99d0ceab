package dev.levee.gateway.jobs;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.Base64;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * Seals the client API keys that queued work needs, AES-GCM with a 96-bit random nonce and a
 * 128-bit tag ({@code nonce ‖ ciphertext ‖ tag}). Keys are kept only when the upstream has no
 * key of its own, sealed at rest, and erased when the job ends ({@link JobStore#finish}).
 * Thread-safe.
 */
public final class KeySeal {

  private static final int NONCE_BYTES = 12;
  private static final int TAG_BITS = 128;

  private final SecretKeySpec key; // null: sealing is off
  private final SecureRandom random = new SecureRandom();

  private KeySeal(SecretKeySpec key) {
    this.key = key;
  }

  /**
   * A seal from {@code base64Secret} (16, 24 or 32 bytes once decoded); empty for none.
   *
   * @throws IllegalArgumentException when the secret is not such base64
   */
  public static KeySeal of(String base64Secret) {
    if (base64Secret.isEmpty()) {
      return new KeySeal(null);
    }
    byte[] raw;
    try {
      raw = Base64.getDecoder().decode(base64Secret);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("queue.secret is not base64");
    }
    if (raw.length != 16 && raw.length != 24 && raw.length != 32) {
      throw new IllegalArgumentException("queue.secret must decode to 16, 24 or 32 bytes, was " + raw.length);
    }
    return new KeySeal(new SecretKeySpec(raw, "AES"));
  }

  /**
   * What to do when {@link #enabled() sealing is off} and work needs a client key kept: set
   * {@code queue.secret}, or give the upstream a key of its own. The same words for the start-up
   * warning and the error at use.
   */
  public static final String HOW_TO_ENABLE = "set queue.secret to base64 of 32 random bytes (make one with "
      + "'head -c 32 /dev/urandom | base64'; usually secret: ${LEVEE_QUEUE_SECRET}), or give the upstream an api-key "
      + "of its own";

    /** Whether client keys can be kept at all. */
  public boolean enabled() {
    return key != null;
  }

  /** The sealed form of {@code apiKey}. */
  public byte[] seal(String apiKey) {
    if (key == null) throw new IllegalStateException("no queue.secret: client keys cannot be kept");
    try {
      byte[] nonce = new byte[NONCE_BYTES];
      random.nextBytes(nonce);
      Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
      cipher.init(Cipher.ENCRYPT_MODE, key, new GCMParameterSpec(TAG_BITS, nonce));
      byte[] sealed = cipher.doFinal(apiKey.getBytes(StandardCharsets.UTF_8));
      return ByteBuffer.allocate(NONCE_BYTES + sealed.length).put(nonce).put(sealed).array();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("AES-GCM is unavailable", e);
    }
  }

  /**
   * The key sealed in {@code sealed}.
   *
   * @throws IllegalStateException when it was sealed with another secret or altered
   */
  public String open(byte[] sealed) {
    if (key == null) throw new IllegalStateException("no queue.secret: a kept client key cannot be opened");
    try {
      Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
      cipher.init(Cipher.DECRYPT_MODE, key, new GCMParameterSpec(TAG_BITS, sealed, 0, NONCE_BYTES));
      return new String(cipher.doFinal(sealed, NONCE_BYTES, sealed.length - NONCE_BYTES), StandardCharsets.UTF_8);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("a kept client key does not open with queue.secret (changed secret?)");
    }
  }
}
