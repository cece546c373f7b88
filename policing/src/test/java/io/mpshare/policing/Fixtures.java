package io.mpshare.policing;

import io.mpshare.core.ledger.Allocation;
import io.mpshare.core.ledger.Phase;
import io.mpshare.core.model.ContainerShare;
import io.mpshare.core.model.GpuDemand;
import io.mpshare.core.model.PodKey;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;

/** Fixture builder for allocations: {@code Fixtures.pod("train").uid(A).on(0).container("main", 2048).build()}. */
final class Fixtures {
    private Fixtures() {}

    static final long RESERVE = 512;

    static Pod pod(String name) { return new Pod(name); }

    static final class Pod {
        private final String name;
        private String uid;
        private List<Integer> gpus = List.of(0);
        private final List<ContainerShare> containers = new ArrayList<>();
        private long reserve = RESERVE;

        Pod(String name) { this.name = name; this.uid = "uid-" + name; }

        Pod uid(String u) { this.uid = u; return this; }
        Pod on(Integer... g) { this.gpus = List.of(g); return this; }
        Pod reserve(long r) { this.reserve = r; return this; }
        Pod container(String n, long mibPerGpu) { containers.add(new ContainerShare(n, false, mibPerGpu, 0)); return this; }
        Pod container(String n, long mibPerGpu, int core) { containers.add(new ContainerShare(n, false, mibPerGpu, core)); return this; }

        Allocation build() {
            if (containers.isEmpty()) container("main", 2048);
            long perGpu = containers.stream().mapToLong(ContainerShare::memMibPerGpu).sum();
            int core = containers.stream().mapToInt(ContainerShare::corePerGpu).sum();
            var d = new GpuDemand(gpus.size(), perGpu + reserve * containers.size(), core, reserve, perGpu * gpus.size(),
                    containers, OptionalLong.empty());
            List<String> uuids = gpus.stream().map(g -> "GPU-" + g).toList();
            return new Allocation(PodKey.of("ml", name), uid, "node-1", gpus, uuids, d, Instant.EPOCH, Phase.ASSIGNED);
        }
    }
}
