package dev.levee.gateway.config;

/** A configuration Levee refuses to start with; the message names the key and, when known, the line. */
public final class ConfigException extends Exception {

  public ConfigException(String message) {
    super(message);
  }

  public ConfigException(String message, Throwable cause) {
    super(message, cause);
  }
}
