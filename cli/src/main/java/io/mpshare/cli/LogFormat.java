package io.mpshare.cli;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.logging.ConsoleHandler;
import java.util.logging.Formatter;
import java.util.logging.Handler;
import java.util.logging.LogManager;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * One line per log record: {@code 2026-12-02T10:19:22.310Z INFO Binder bind pod=ml/train-0 node=gpu-7 ...}, UTC
 * time, level, the logger's simple name, the message (a line break inside it becomes a space; a thrown exception's
 * stack trace follows on its own lines: only bugs log one). The JDK's default format spends two lines on a record and
 * finds the calling method by walking the stack for every record; the extender logs a line per bind, so during a
 * burst of pods that walk was a fifth of a bind's CPU (docs/decisions/log-format.md).
 *
 * <p>{@link #install} puts it on the root logger's console handler unless the JVM was given a logging configuration
 * of its own ({@code java.util.logging.config.file} or {@code .class}): then that configuration stands.
 */
public final class LogFormat extends Formatter {
    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSS'Z'").withZone(ZoneOffset.UTC);

    /** Formats the root console handler's records one per line, unless the JVM has a logging configuration of its own. */
    public static void install() {
        if (System.getProperty("java.util.logging.config.file") != null || System.getProperty("java.util.logging.config.class") != null) return;
        LogManager.getLogManager(); // reads the JDK's default configuration (the root's console handler) first
        for (Handler h : Logger.getLogger("").getHandlers())
            if (h instanceof ConsoleHandler) h.setFormatter(new LogFormat());
    }

    @Override public String format(LogRecord r) {
        StringBuilder sb = new StringBuilder(160);
        TIME.formatTo(Instant.ofEpochMilli(r.getMillis()), sb);
        sb.append(' ').append(r.getLevel().getName()).append(' ');
        String name = r.getLoggerName();
        sb.append(name == null ? "-" : name.substring(name.lastIndexOf('.') + 1)).append(' ');
        sb.append(oneLine(formatMessage(r))).append('\n');
        if (r.getThrown() != null) {
            StringWriter w = new StringWriter();
            r.getThrown().printStackTrace(new PrintWriter(w));
            sb.append(w);
        }
        return sb.toString();
    }

    /**
     * The message on one line: a line break in it (a value a tenant wrote, quoted into a message) becomes a space, so no
     * message can make a line that reads as a record of its own.
     */
    static String oneLine(String m) { return m.indexOf('\n') < 0 && m.indexOf('\r') < 0 ? m : m.replace('\r', ' ').replace('\n', ' '); }
}
