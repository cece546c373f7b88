package io.mpshare.sim.workload;

import java.util.List;

/** A trace that could not be read: every bad row, not just the first. */
public final class TraceException extends Exception {
    private final List<TraceError> errors;

    public TraceException(String source, List<TraceError> errors) {
        super(source + ": " + errors.size() + " bad row(s); first: " + errors.getFirst());
        this.errors = List.copyOf(errors);
    }

    public List<TraceError> errors() { return errors; }
}
