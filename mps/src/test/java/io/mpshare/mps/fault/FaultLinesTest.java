package io.mpshare.mps.fault;

import io.mpshare.mps.fault.FaultSignal.Strength;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/** Lines of an MPS daemon's and server's log: the measured teardown line is a fault, fault words a hint, the rest nothing. */
class FaultLinesTest {
    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', value = {
            "[2026-12-01 10:00:03.117 Server 4433] Server teardown in progress. Refusing to accept new client | FAULT",
            "Refusing to accept new client                                                                 | FAULT",
            "[2026-12-01 10:00:03.001 Server 4433] Client 4501 encountered a FATAL exception              | HINT",
            "[Server 4433] MMU Fault on device 0                                                         | HINT",
            "[Server 4433] an illegal memory address was encountered                                       | HINT",
            "[2026-12-01 10:00:01.000 Control 4410] Cmd:get_server_list                                  | NONE",
            "[2026-12-01 10:00:01.000 Control 4410] Cmd:set_default_active_thread_percentage 30          | NONE",
            "[2026-12-01 10:00:01.200 Server 4433] New client 4501 connected                               | NONE",
            "[2026-12-01 10:00:02.200 Control 4410] NEW CLIENT 4501 from user 1000: Server already exists  | NONE",
            "[2026-12-01 10:00:09.200 Server 4433] Client 4501 disconnected                                | NONE",
    })
    void read(String line, String expected) {
        Optional<Strength> s = FaultLines.read(line);
        assertThat(s.map(Enum::name).orElse("NONE")).isEqualTo(expected);
    }
}
