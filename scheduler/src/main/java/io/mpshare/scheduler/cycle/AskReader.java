package io.mpshare.scheduler.cycle;

import io.mpshare.core.MemoryUnit;
import io.mpshare.core.model.DemandResolver;
import io.mpshare.core.model.PodInfo;
import io.mpshare.kube.PodFacts;

import java.util.Objects;

/**
 * Reads a pod's {@link Ask} from its facts (the wire reader's or {@code KubePod}'s): the one translation to
 * {@code PodInfo} ({@link PodFacts#toPodInfo}), then the core's {@link DemandResolver}. Never throws for a bad pod:
 * that is an {@link Ask.Bad} with the reason.
 *
 * @param unit     unit of {@code aliyun.com/gpu-mem}
 * @param resolver charges the context reserve and splits over {@code gpu-count}
 */
public record AskReader(MemoryUnit unit, DemandResolver resolver) {
    public AskReader {
        Objects.requireNonNull(unit, "unit");
        Objects.requireNonNull(resolver, "resolver");
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
                case DemandResolver.Resolution.Resolved r -> new Ask.Gpu(pod, r.demand());
                case DemandResolver.Resolution.NoGpu n -> new Ask.None(pod);
                case DemandResolver.Resolution.Invalid i -> new Ask.Bad("pod " + pod.key() + ": " + i.reason());
            };
        } catch (ArithmeticException e) {
            return new Ask.Bad("pod " + pod.key() + " asks more GPU memory than can be counted: check its aliyun.com/gpu-mem limits");
        }
    }
}
