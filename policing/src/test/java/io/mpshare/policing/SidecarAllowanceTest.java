package io.mpshare.policing;

import io.mpshare.core.MemoryUnit;
import io.mpshare.core.Names;
import io.mpshare.core.codec.AllocationCodec;
import io.mpshare.core.ledger.Allocation;
import io.mpshare.core.model.ContainerRequest;
import io.mpshare.core.model.PodInfo;
import io.mpshare.core.model.PodKey;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Native sidecars (init containers with {@code restartPolicy: Always}) run beside the app containers, so the policer,
 * which reads the allocation the extender annotated, allows them with the app containers.
 */
class SidecarAllowanceTest {
    @Test
    void allowedMib_nativeSidecar_countedBesideTheApp() {
        // as the extender writes it for a 1 GiB sidecar beside a 2 GiB app container, reserve 1024: charge 2048 + 3072
        String line = "v1;node=node-1;gpus=0;uuids=GPU-0;reserve=1024;charge=5120/0;c=main:2048:0;i=proxy:1024:0;s=proxy";
        var pod = new PodInfo(PodKey.of("ml", "p"), "uid-p", List.of(ContainerRequest.sidecar("proxy", 1024, 0), ContainerRequest.app("main", 2048, 0)),
                1, java.util.OptionalLong.empty());
        Allocation a = ((AllocationCodec.Decoded.Found) AllocationCodec.decode(pod, Map.of(Names.ANN_ALLOCATION, line, Names.ANN_ASSIGNED, "true"),
                "node-1", null, true, MemoryUnit.GIB)).allocation();
        assertThat(a.demand().requestedMib()).as("what the pod asked at once").isEqualTo(1024 + 2048);
        assertThat(new VerdictEngine(128).allowedMib(a)).isEqualTo(5120 + 128);
    }
}
