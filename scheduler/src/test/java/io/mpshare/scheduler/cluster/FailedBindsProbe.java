package io.mpshare.scheduler.cluster;

/** Test access to {@link FailedBinds}' package-private size from other packages. */
public final class FailedBindsProbe {
    private FailedBindsProbe() {}

    public static int size(FailedBinds f) { return f.size(); }
}
