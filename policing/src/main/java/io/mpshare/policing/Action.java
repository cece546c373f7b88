package io.mpshare.policing;

import java.util.Objects;

/** One thing the policer decided to do about a {@link Finding}. {@link #key()} de-duplicates it across cycles. */
public sealed interface Action {
    Finding cause();

    String key();

    /** The label of the {@code action} metric label. */
    String kind();

    /** Tell: an event and the findings metric. Every finding gets one, whatever the policy. */
    record Report(Finding cause) implements Action {
        public Report { Objects.requireNonNull(cause, "cause"); }
        @Override public String key() { return "report:" + cause.key(); }
        @Override public String kind() { return "event"; }
    }

    /** End one MPS client through its control daemon ({@code terminate_client <server> <pid>}). */
    record TerminateClient(long pid, Finding cause) implements Action {
        public TerminateClient { Objects.requireNonNull(cause, "cause"); }
        @Override public String key() { return "terminate:" + cause.gpu() + ":" + pid; }
        @Override public String kind() { return "terminate"; }
    }

    /** SIGKILL one process: a rogue non-client, or a client terminate_client did not end in time. */
    record Kill(long pid, Finding cause) implements Action {
        public Kill { Objects.requireNonNull(cause, "cause"); }
        @Override public String key() { return "kill:" + cause.gpu() + ":" + pid; }
        @Override public String kind() { return "kill"; }
    }

    /** Evict the pod through the Eviction API. */
    record Evict(String podUid, Finding cause) implements Action {
        public Evict { Objects.requireNonNull(podUid, "podUid"); Objects.requireNonNull(cause, "cause"); }
        @Override public String key() { return "evict:" + podUid; }
        @Override public String kind() { return "evict"; }
    }
}
