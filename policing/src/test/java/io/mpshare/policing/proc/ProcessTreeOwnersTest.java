package io.mpshare.policing.proc;

import io.mpshare.policing.Owner;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

class ProcessTreeOwnersTest {
    @TempDir Path proc;

    private void stat(long pid, String comm, long ppid) throws IOException {
        Files.createDirectories(proc.resolve(Long.toString(pid)));
        Files.writeString(proc.resolve(Long.toString(pid)).resolve("stat"), pid + " (" + comm + ") S " + ppid + " " + pid + " 1 0 -1 4194560 ...\n");
    }

    @Test
    void ownerOf_descendantOfARegisteredRoot_belongsToItsJob() throws IOException {
        stat(100, "mpshare", 1);
        stat(200, "python3", 100);
        stat(300, "pt_data_worker", 200);
        stat(301, "weird) name (x", 200); // a comm with parentheses and spaces does not shift the fields
        stat(400, "bash", 1);
        var owners = new ProcessTreeOwners(new ProcFs(proc));
        owners.register(200, Owner.pod("job-7"));
        assertThat(owners.ownerOf(200)).contains(Owner.pod("job-7"));
        assertThat(owners.ownerOf(300)).contains(Owner.pod("job-7"));
        assertThat(owners.ownerOf(301)).contains(Owner.pod("job-7"));
        assertThat(owners.ownerOf(100)).isEmpty();
        assertThat(owners.ownerOf(400)).isEmpty();
        assertThat(owners.ownerOf(999)).isEmpty();
        owners.unregister(200);
        assertThat(owners.ownerOf(300)).isEmpty();
    }

    @Test
    void parentPid_readsField4() throws IOException {
        stat(301, "a) (b", 200);
        assertThat(new ProcFs(proc).parentPid(301)).contains(200L);
        assertThat(new ProcFs(proc).parentPid(302)).isEmpty();
    }
}
