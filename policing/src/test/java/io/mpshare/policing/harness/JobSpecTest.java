package io.mpshare.policing.harness;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class JobSpecTest {
    @Test
    void parse_jobsBecomeAllocations() {
        var jobs = JobSpec.parse("""
                # the GPU suite's three offenders and a neighbour
                job tamper gpus=0 request=2048 reserve=512 pids=4242

                job group gpus=0,1 request=1024 core=30 pids=4300,4301
                """);
        assertThat(jobs).hasSize(2);
        var a = jobs.get(1).allocation();
        assertThat(a.podUid()).isEqualTo("group");
        assertThat(a.gpuIndices()).containsExactly(0, 1);
        assertThat(a.demand().requestedMibPerGpu()).isEqualTo(1024);
        assertThat(a.demand().reserveMib()).isEqualTo(JobSpec.DEFAULT_RESERVE).isEqualTo(io.mpshare.core.Names.DEFAULT_CONTEXT_RESERVE_MIB); // no reserve= given
        assertThat(a.demand().chargeCore()).isEqualTo(30);
        assertThat(jobs.get(1).pids()).isEqualTo(List.of(4300L, 4301L));
    }

    @Test
    void parse_badLine_namesIt() {
        assertThatThrownBy(() -> JobSpec.parse("job x gpus=0 request=abc")).hasMessageContaining("line 1");
        assertThatThrownBy(() -> JobSpec.parse("pod x")).hasMessageContaining("line 1");
        assertThatThrownBy(() -> JobSpec.parse("job x request=5")).hasMessageContaining("gpus");
    }
}
