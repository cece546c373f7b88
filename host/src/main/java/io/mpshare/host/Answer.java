package io.mpshare.host;

import io.mpshare.host.state.JobRecord;

import java.util.Map;

/** The host's answer to an allocation request: a job with the env its command must run with, or a refusal with the reason. */
public sealed interface Answer {
    record Granted(JobRecord job, Map<String, String> env) implements Answer {
        public Granted { env = Map.copyOf(env); }
    }

    /** @param retry true when waiting can help (no room now, daemon restarting); false when it never can */
    record Refused(Code code, boolean retry, String message) implements Answer {}

    enum Code { BAD_REQUEST, TOO_LARGE, NO_ROOM, DAEMON_DOWN, CEILING_FAILED }
}
