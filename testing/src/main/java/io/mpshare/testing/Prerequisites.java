package io.mpshare.testing;

import org.junit.jupiter.api.Assumptions;

/**
 * A test's outside prerequisite (a trace file, root, a tool on PATH). Missing on a developer's machine, the test is
 * skipped with the reason; under {@code CI=true} it fails with the same reason, so CI never passes by skipping (as the
 * real-cluster tiers do).
 */
public final class Prerequisites {
    private Prerequisites() {}

    /** Returns when {@code present}; else skips the test, or under {@code CI=true} fails it, with {@code missing}. */
    public static void require(boolean present, String missing) {
        require(present, missing, System.getenv("CI"));
    }

    static void require(boolean present, String missing, String ciVariable) {
        if (present) return;
        if ("true".equalsIgnoreCase(ciVariable)) throw new AssertionError("CI=true, so this is a failure, not a skip: " + missing);
        Assumptions.abort(missing);
    }
}
