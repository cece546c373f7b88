package io.mpshare.cli;

import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;

/** Runs {@code mpshare ARGS} in this JVM as {@link Main#run} does, with stdout and stderr captured. */
record CliRun(int exitCode, String out, String err) {
    static CliRun of(String... args) {
        StringWriter out = new StringWriter(), err = new StringWriter();
        CommandLine cl = Main.commandLine(args);
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        int code = cl.execute(Main.commandArgs(args));
        return new CliRun(code, out.toString(), err.toString());
    }

    /** stderr as its lines. */
    java.util.List<String> errLines() { return err.lines().toList(); }
}
