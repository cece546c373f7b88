package io.mpshare.host;

import io.mpshare.policing.Owner;
import io.mpshare.policing.proc.ProcFs;
import io.mpshare.policing.proc.ProcessTreeOwners;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

class HostOwnersTest {
    @TempDir Path proc;
    final AtomicReference<Instant> now = new AtomicReference<>(Instant.parse("2026-11-30T04:00:00Z"));
    final Set<Long> alive = new java.util.HashSet<>(Set.of(10L, 20L, 30L));

    HostOwners owners(boolean police) {
        return new HostOwners(new ProcessTreeOwners(new ProcFs(proc)), pid -> alive.contains(pid) ? OptionalLong.of(pid * 100) : OptionalLong.empty(),
                police, now::get, Duration.ofSeconds(10));
    }

    @Test void ownerOf_jobRoot_isTheJob() {
        HostOwners o = owners(true);
        o.register(10, "job-a");
        assertThat(o.ownerOf(10)).contains(Owner.pod("job-a"));
    }

    @Test void ownerOf_liveProcessOfNoJob_isUnmanaged_whenPoliced() {
        assertThat(owners(true).ownerOf(20)).contains(Owner.pod(HostOwners.UNMANAGED));
        assertThat(owners(false).ownerOf(20)).isEmpty();
    }

    @Test void ownerOf_goneProcess_isUnknownNotUnmanaged() {
        assertThat(owners(true).ownerOf(99)).isEmpty();
    }

    @Test void ownerOf_pidOfAJobThatJustEnded_isUnknownForTheGrace_regressionStaleNvmlEntry() {
        HostOwners o = owners(true);
        o.register(30, "job-b");
        o.unregister(30); // the job ended; NVML may still list PID 30, or the PID is reused at once
        assertThat(o.ownerOf(30)).isEmpty();
        now.set(now.get().plusSeconds(11));
        assertThat(o.ownerOf(30)).contains(Owner.pod(HostOwners.UNMANAGED));
    }
}
