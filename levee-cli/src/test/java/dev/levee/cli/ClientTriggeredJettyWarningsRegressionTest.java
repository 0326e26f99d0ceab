package dev.levee.cli;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.joran.JoranConfigurator;
import org.junit.jupiter.api.Test;

/**
 * Regression (session 13, hostile clients): a request with two {@code Host} headers made Jetty's
 * parser log a WARN quoting both values in full — up to 8 KiB of the client's text per request, as
 * often as a client sends it — besides the 400 the access log records in one bounded line. The
 * runnable jar's logging keeps Jetty's other warnings and drops only the parser's.
 */
class ClientTriggeredJettyWarningsRegressionTest {

  @Test
  void theParsersWarningsAreDroppedAndJettysOthersKept() throws Exception {
    LoggerContext context = new LoggerContext();
    JoranConfigurator configurator = new JoranConfigurator();
    configurator.setContext(context);
    configurator.doConfigure(getClass().getResource("/logback.xml"));

    assertThat(context.getLogger("org.eclipse.jetty.http.HttpParser").isWarnEnabled()).isFalse();
    assertThat(context.getLogger("org.eclipse.jetty.http.HttpParser").isErrorEnabled()).isTrue();
    assertThat(context.getLogger("org.eclipse.jetty.server.Server").isWarnEnabled()).isTrue();
    context.stop();
  }
}
