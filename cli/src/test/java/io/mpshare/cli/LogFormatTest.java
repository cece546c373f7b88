package io.mpshare.cli;

import org.junit.jupiter.api.Test;

import java.util.logging.ConsoleHandler;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

class LogFormatTest {
    private static LogRecord record(Level level, String msg, Object... params) {
        LogRecord r = new LogRecord(level, msg);
        r.setLoggerName("io.mpshare.scheduler.bind.Binder");
        r.setParameters(params);
        r.setInstant(java.time.Instant.parse("2026-12-02T10:19:22.310Z"));
        return r;
    }

    @Test void aRecord_isOneLine_timeLevelLoggerMessage() {
        String line = new LogFormat().format(record(Level.INFO, "bind pod={0} node={1}", "ml/train-0", "gpu-7"));
        assertEquals("2026-12-02T10:19:22.310Z INFO Binder bind pod=ml/train-0 node=gpu-7\n", line);
    }

    @Test void lineBreaksInAMessage_cannotForgeARecord() {
        String line = new LogFormat().format(record(Level.WARNING, "refused {0}", "x\n2026-12-02T10:19:22.311Z INFO Binder bind pod=forged\r"));
        assertEquals(1, line.split("\n", -1).length - 1, line);
        assertTrue(line.startsWith("2026-12-02T10:19:22.310Z WARNING Binder refused x 2026"), line);
    }

    @Test void aThrownException_followsWithItsStackTrace() {
        LogRecord r = record(Level.SEVERE, "bind failed unexpectedly");
        r.setThrown(new IllegalStateException("boom"));
        String out = new LogFormat().format(r);
        assertTrue(out.startsWith("2026-12-02T10:19:22.310Z SEVERE Binder bind failed unexpectedly\njava.lang.IllegalStateException: boom\n"), out);
    }

    @Test void formatting_neverAsksForTheCaller() {
        // the JDK's format reads the source class, which walks the stack to find it; this one never asks
        LogRecord r = new LogRecord(Level.INFO, "x") {
            @Override public String getSourceClassName() { throw new AssertionError("the caller was looked up"); }
            @Override public String getSourceMethodName() { throw new AssertionError("the caller was looked up"); }
        };
        r.setLoggerName("a.B");
        assertFalse(new LogFormat().format(r).isEmpty());
    }

    @Test void install_putsTheFormatOnTheRootConsoleHandler() {
        LogFormat.install();
        boolean found = false;
        for (Handler h : Logger.getLogger("").getHandlers())
            if (h instanceof ConsoleHandler) { assertInstanceOf(LogFormat.class, h.getFormatter()); found = true; }
        assertTrue(found, "the JDK's default configuration has a root console handler");
    }
}
