package io.mpshare.scheduler.bind;

import io.mpshare.core.Names;
import io.mpshare.core.model.PodKey;
import io.mpshare.kube.KubePod;

import java.util.Set;
import java.util.TreeSet;

/**
 * Which pods this extender's bind accepts: only pods of its own scheduler profile(s) that ask for a shared
 * GPU. Anything else reaching {@code /bind} did not come from kube-scheduler's extender call for a pod the
 * extender filtered, and is refused with an Error that says why.
 *
 * @param schedulerNames the profiles whose pods may be bound; empty accepts any
 */
public record BindChecks(Set<String> schedulerNames) {
    /** What a pod with no {@code spec.schedulerName} gets from the API server's defaulting. */
    public static final String DEFAULT_SCHEDULER = "default-scheduler";

    public BindChecks {
        schedulerNames = Set.copyOf(schedulerNames);
    }

    public static BindChecks any() { return new BindChecks(Set.of()); }

    /** A refusal for a pod of another scheduler, or null. */
    String otherScheduler(PodKey key, KubePod pod) {
        if (schedulerNames.isEmpty()) return null;
        String name = pod.schedulerName();
        if (name.isEmpty()) name = DEFAULT_SCHEDULER;
        if (schedulerNames.contains(name)) return null;
        return "pod " + key + " names schedulerName " + name + ", and this mpshare extender binds only pods of "
                + String.join(" or ", new TreeSet<>(schedulerNames)) + " (--scheduler-name)";
    }

    /** The refusal for a pod that asks no shared GPU. */
    static String noGpu(PodKey key) {
        return "pod " + key + " asks no shared GPU (" + Names.RESOURCE_GPU_MEM + " or " + Names.RESOURCE_GPU_CORE
                + "), and this mpshare extender binds only pods that do: list both in the extender's managedResources so kube-scheduler calls it for those pods only";
    }
}
