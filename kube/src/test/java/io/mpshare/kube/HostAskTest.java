package io.mpshare.kube;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.mpshare.testing.Pods;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;

class HostAskTest {
    @ParameterizedTest(name = "{0} cpu, {1} memory -> {2}m {3}Mi")
    @CsvSource({
            "500m, 512Mi, 500, 512",
            "2, 1Gi, 2000, 1024",
            "1e3, 1G, 1000000, 954",      // 1e3 cores; 10^9 bytes is 953.67 MiB, rounded up
            "0.1, 1536Ki, 100, 2",        // 1.5 MiB rounded up
            "1m, 100, 1, 1",              // 100 bytes: 1 MiB
            "250u, 0, 1, 0",              // a quarter of a thousandth: rounded up like MilliValue
    })
    void of_quantities_roundedUpToMilliAndMib(String cpu, String memory, long milli, long mib) {
        assertEquals(new HostAsk(milli, mib), HostAsk.of(Pods.pod("p").cpu(cpu).memory(memory).build()));
    }

    @Test void of_noRequests_zero() {
        assertEquals(HostAsk.NONE, HostAsk.of(Pods.pod("p").gpuMem(4).build()));
    }

    @Test void of_limitsOnly_limitsCountAsTheDefaultedRequest() {
        Pod p = pod(List.of(c("a", null, null, "2", "4Gi", null)), List.of(), null);
        assertEquals(new HostAsk(2000, 4096), HostAsk.of(p));
    }

    @Test void of_initSidecarsAndOverhead_kubeSchedulersRule() {
        // apps: 1 + 1 cores; sidecar 0.5 (runs beside them); plain init 3 cores after the sidecar: init phase 3.5
        Pod p = pod(List.of(c("a", "1", "1Gi", null, null, null), c("b", "1", "1Gi", null, null, null)),
                List.of(c("side", "500m", "256Mi", null, null, "Always"), c("init", "3", "512Mi", null, null, null)),
                Map.of("cpu", new Quantity("250m"), "memory", new Quantity("64Mi")));
        // cpu: max(0.5 + 3, 2 + 0.5) + 0.25 = 3.75; memory: max(256 + 512, 2048 + 256) + 64 = 2368
        assertEquals(new HostAsk(3750, 2368), HostAsk.of(p));
    }

    @Test void of_unreadableQuantity_zero() {
        Pod p = pod(List.of(c("a", "lots", "1Gi", null, null, null)), List.of(), null);
        assertEquals(new HostAsk(0, 1024), HostAsk.of(p));
    }

    private static Container c(String name, String cpu, String mem, String cpuLimit, String memLimit, String restart) {
        Map<String, Quantity> req = new LinkedHashMap<>(), lim = new LinkedHashMap<>();
        if (cpu != null) req.put("cpu", new Quantity(cpu));
        if (mem != null) req.put("memory", new Quantity(mem));
        if (cpuLimit != null) lim.put("cpu", new Quantity(cpuLimit));
        if (memLimit != null) lim.put("memory", new Quantity(memLimit));
        return new ContainerBuilder().withName(name).withRestartPolicy(restart).withNewResources().withRequests(req).withLimits(lim).endResources().build();
    }

    private static Pod pod(List<Container> apps, List<Container> inits, Map<String, Quantity> overhead) {
        Pod p = Pods.pod("p").build();
        p.getSpec().setContainers(apps);
        p.getSpec().setInitContainers(inits);
        p.getSpec().setOverhead(overhead);
        return p;
    }
}
