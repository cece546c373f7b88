package io.mpshare.deviceplugin.allocation;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.function.Function;

/**
 * Which MPS daemon serves a pod's clients, and whether it serves now: Allocate answers its pipe directory, and never a
 * daemon that does not serve (a domain still starting, faulted or stalled). Production: the fault-domain controller;
 * {@link #nodeDaemon} without domains. The change counter lets Allocate wait, off kubelet's event loop, for a daemon to
 * come up.
 */
public interface Daemons extends AllocationManager.ChangeWaiter {
    /** The daemon of the pod {@code podUid}, sent to {@code colour}, whose container kubelet gave {@code gpuUuids}; never blocks. */
    Served daemonFor(String podUid, String colour, List<String> gpuUuids);

    /** Where a pod's clients go. */
    sealed interface Served {
        /** Serving: answer {@code pipeDir}; {@code domain} is its id ({@code node} for the colour's node daemon). */
        record Ready(String pipeDir, String domain) implements Served {}

        /** Not serving now; {@code reason} says what it waits for, for the refusal that ends a wait. */
        record NotReady(String domain, String reason) implements Served {}
    }

    /** Every pod on the colour's node daemon, {@code pipeOfColour(colour)}: a node without fault domains. */
    static Daemons nodeDaemon(Function<String, Path> pipeOfColour) {
        return new Daemons() {
            @Override public Served daemonFor(String podUid, String colour, List<String> gpuUuids) {
                return new Served.Ready(pipeOfColour.apply(colour).toString(), "node");
            }

            @Override public long version() { return 0; }

            @Override public boolean awaitChange(long seen, Duration timeout) { return false; }
        };
    }
}
