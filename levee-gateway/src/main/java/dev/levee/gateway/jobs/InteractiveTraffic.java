package dev.levee.gateway.jobs;

/** Where the gateway reports its interactive requests, so queued work can step aside ({@link Pacing}). */
public interface InteractiveTraffic {

  /** Reports nothing (no worker pool listens). */
  InteractiveTraffic NONE = new InteractiveTraffic() {
    @Override
    public void enter() {}

    @Override
    public void exit() {}
  };

  /** An interactive request starts. */
  void enter();

  /** It ended (answered, refused or failed); called once per {@link #enter}. */
  void exit();
}
