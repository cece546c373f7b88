package io.mpshare.scheduler.cycle;

import io.mpshare.core.MemoryUnit;
import io.mpshare.core.isolation.FaultDomains;
import io.mpshare.core.isolation.FaultDomains.Choice;
import io.mpshare.core.isolation.FaultDomains.Kind;
import io.mpshare.core.model.DemandResolver;
import io.mpshare.core.model.PodInfo;
import io.mpshare.core.model.ServingDomain;
import io.mpshare.kube.PodFacts;

import java.util.Objects;
import java.util.OptionalLong;
import java.util.function.Function;

/**
 * Reads a pod's {@link Ask} from its facts (the wire reader's or {@code KubePod}'s): the one translation to
 * {@code PodInfo} ({@link PodFacts#toPodInfo}), then the core's {@link DemandResolver}. Never throws for a bad pod:
 * that is an {@link Ask.Bad} with the reason.
 *
 * @param unit     unit of {@code aliyun.com/gpu-mem}
 * @param resolver charges the context reserve and splits over {@code gpu-count}
 * @param kinds    the fault-domain kind of a namespace (its admin-owned label, else the cluster default:
 *                 {@code NamespaceKinds}); the demand carries the pod's {@link ServingDomain} from it, never from
 *                 anything the pod's author writes
 */
public record AskReader(MemoryUnit unit, DemandResolver resolver, Function<String, Choice> kinds) {
    /** Every namespace in {@code node} kind: one daemon per node, the one-UID-per-daemon rule for every pod. */
    public static final Function<String, Choice> NODE_EVERYWHERE = ns -> FaultDomains.kindOf(ns, null, Kind.NODE);

    public AskReader {
        Objects.requireNonNull(unit, "unit");
        Objects.requireNonNull(resolver, "resolver");
        Objects.requireNonNull(kinds, "kinds");
    }

    /** A reader that puts every pod on the node daemon ({@link #NODE_EVERYWHERE}). */
    public AskReader(MemoryUnit unit, DemandResolver resolver) { this(unit, resolver, NODE_EVERYWHERE); }

    /** The serving domain of a pod of {@code namespace} with UID {@code podUid} running as {@code clientUid} on {@code gpuCount} GPUs. */
    public ServingDomain domain(String namespace, String podUid, OptionalLong clientUid, int gpuCount) {
        return ServingDomain.of(kinds.apply(namespace).kind(), namespace, podUid, clientUid, gpuCount);
    }

    public Ask read(PodFacts facts) {
        if (facts == null) return new Ask.Bad("the request carries no Pod");
        PodInfo pod;
        try {
            pod = facts.toPodInfo(unit);
        } catch (IllegalArgumentException | ArithmeticException e) {
            return new Ask.Bad(e.getMessage());
        }
        try {
            return switch (resolver.resolve(pod)) {
                case DemandResolver.Resolution.Resolved r -> new Ask.Gpu(pod, r.demand().withDomain(
                        domain(pod.key().namespace(), pod.uid(), r.demand().runAsUser(), r.demand().gpuCount())));
                case DemandResolver.Resolution.NoGpu n -> new Ask.None(pod);
                case DemandResolver.Resolution.Invalid i -> new Ask.Bad("pod " + pod.key() + ": " + i.reason());
            };
        } catch (ArithmeticException e) {
            return new Ask.Bad("pod " + pod.key() + " asks more GPU memory than can be counted: check its aliyun.com/gpu-mem limits");
        }
    }
}
