package dev.levee.gateway.cluster;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * A Lua script shipped next to this class ({@code <name>.lua}) with its SHA-1, so a call sends
 * only the digest ({@code EVALSHA}) and the text only when Redis has forgotten it (a restart).
 */
record LuaScript(String name, String text, String sha) {

  static LuaScript load(String name) {
    try (InputStream in = LuaScript.class.getResourceAsStream(name + ".lua")) {
      if (in == null) {
        throw new IllegalStateException("missing script " + name + ".lua next to " + LuaScript.class.getName());
      }
      String text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
      byte[] digest = MessageDigest.getInstance("SHA-1").digest(text.getBytes(StandardCharsets.UTF_8));
      return new LuaScript(name, text, HexFormat.of().formatHex(digest));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-1 is required of every JDK", e);
    }
  }
}
