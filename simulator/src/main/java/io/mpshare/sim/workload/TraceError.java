package io.mpshare.sim.workload;

/** One bad row of a trace: the 1-based line number and what is wrong with it. */
public record TraceError(int line, String message) {
    @Override public String toString() { return "line " + line + ": " + message; }
}
