package io.mpshare.sim.workload;

import io.mpshare.core.MemoryUnit;
import org.junit.jupiter.api.Test;

import java.io.StringReader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

class TraceReaderTest {
    private static Workload read(String csv, MemoryUnit unit) throws Exception {
        return new TraceReader(unit).read("t.csv", new StringReader(csv));
    }

    @Test
    void read_goodTrace_podsSortedByArrival_inMib() throws Exception {
        Workload w = read("""
                # a comment
                arrival,duration,gpu-mem,gpu-core,gpu-count
                10,60,7,30,1

                0.5,3600,16,,2
                """, MemoryUnit.GIB);
        assertThat(w.pods()).containsExactly(
                new SimPod(0, 500, 3_600_000, 16 * 1024, 0, 2, "trace"),
                new SimPod(1, 10_000, 60_000, 7 * 1024, 30, 1, "trace"));
    }

    @Test
    void read_mibUnit_takesMib() throws Exception {
        assertThat(read("arrival,duration,gpu-mem,gpu-core,gpu-count\n0,1,1536,0,1\n", MemoryUnit.MIB).pods().getFirst().memMib()).isEqualTo(1536);
    }

    @Test
    void read_badRows_allReportedWithLineNumbersAndWhatIsWrong() {
        String csv = """
                arrival,duration,gpu-mem,gpu-core,gpu-count
                0,60,7,0,1
                -1,60,7,0,1
                5,0,7,0,1
                5,60,7.5,0,1
                # comment lines count too
                5,60,7,120,1
                5,60,7,0
                abc,60,7,0,0
                """;
        var e = catchThrowableOfType(TraceException.class, () -> read(csv, MemoryUnit.GIB));
        assertThat(e.errors()).extracting(TraceError::line).containsExactly(3, 4, 5, 7, 8, 9);
        assertThat(e.errors().get(0).message()).contains("arrival is -1").contains(">= 0");
        assertThat(e.errors().get(1).message()).contains("duration is 0").contains("> 0");
        assertThat(e.errors().get(2).message()).contains("gpu-mem is '7.5'").contains("--unit MiB");
        assertThat(e.errors().get(3).message()).contains("gpu-core is 120").contains("0-100");
        assertThat(e.errors().get(4).message()).contains("4 field(s)").contains("expected 5");
        assertThat(e.errors().get(5).message()).contains("arrival is 'abc'").contains("gpu-count is 0");
        assertThat(e.errors().get(0).toString()).startsWith("line 3: ");
    }

    @Test
    void read_wrongHeader_saysWhatItMustBe() {
        var e = catchThrowableOfType(TraceException.class, () -> read("time,dur,mem\n0,1,1,0,1\n", MemoryUnit.GIB));
        assertThat(e.errors().getFirst().line()).isEqualTo(1);
        assertThat(e.errors().getFirst().message()).contains(TraceReader.HEADER);
    }

    @Test
    void read_empty_isAnError() {
        var e = catchThrowableOfType(TraceException.class, () -> read("", MemoryUnit.GIB));
        assertThat(e.errors().getFirst().message()).contains("no header");
        var e2 = catchThrowableOfType(TraceException.class, () -> read(TraceReader.HEADER + "\n", MemoryUnit.GIB));
        assertThat(e2.errors().getFirst().message()).contains("no pods");
    }
}
