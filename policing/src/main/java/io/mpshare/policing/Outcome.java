package io.mpshare.policing;

import java.util.Objects;

/** What became of one planned {@link Action} in a cycle. Actions skipped as duplicates have no outcome. */
public record Outcome(Action action, Result result, String detail) {
    public Outcome {
        Objects.requireNonNull(action, "action");
        Objects.requireNonNull(result, "result");
        detail = detail == null ? "" : detail;
    }

    public enum Result {
        /** Done as planned. */
        DONE,
        /** A terminate whose client no daemon lists was carried out as a SIGKILL instead. */
        FELL_BACK,
        /** A client still on the GPU {@code escalateAfter} after terminate_client was SIGKILLed. */
        ESCALATED,
        /** An eviction refused for now (PodDisruptionBudget); tried again after {@code retryAfter}. */
        BLOCKED,
        /** Not done this cycle on purpose (a "non-client" that is a client on a second look); judged again next cycle. */
        SKIPPED,
        /** The action failed; tried again later. */
        FAILED
    }
}
