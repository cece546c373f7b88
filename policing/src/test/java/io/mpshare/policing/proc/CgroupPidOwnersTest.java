package io.mpshare.policing.proc;

import io.mpshare.policing.Owner;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

class CgroupPidOwnersTest {
    static final String UID = CgroupParserTest.UID;
    static final String ID = CgroupParserTest.ID;

    @TempDir Path proc;

    private void write(long pid, String file, String text) throws IOException {
        Files.createDirectories(proc.resolve(Long.toString(pid)));
        Files.writeString(proc.resolve(Long.toString(pid)).resolve(file), text);
    }

    @Test
    void ownerOf_podProcess_namesPodAndContainer() throws IOException {
        write(4242, "cgroup", "0::/kubepods/burstable/pod" + UID + "/" + ID + "\n");
        var owners = new CgroupPidOwners(new ProcFs(proc), (uid, id) -> uid.equals(UID) && id.equals(ID) ? Optional.of("train") : Optional.empty());
        assertThat(owners.ownerOf(4242)).contains(new Owner(UID, ID, "train"));
    }

    @Test
    void ownerOf_containerNotYetInPodStatus_stillNamesThePod() throws IOException {
        write(4242, "cgroup", "0::/kubepods/burstable/pod" + UID + "/" + ID + "\n");
        assertThat(new CgroupPidOwners(new ProcFs(proc), ContainerNames.none()).ownerOf(4242)).contains(new Owner(UID, ID, ""));
    }

    @Test
    void ownerOf_hostProcessOrPlainDocker_isEmpty() throws IOException {
        write(1, "cgroup", "0::/init.scope\n");
        write(2, "cgroup", "0::/docker/" + ID + "\n");
        var owners = new CgroupPidOwners(new ProcFs(proc), ContainerNames.none());
        assertThat(owners.ownerOf(1)).isEmpty();
        assertThat(owners.ownerOf(2)).isEmpty();
    }

    @Test
    void ownerOf_processGone_isEmpty() {
        assertThat(new CgroupPidOwners(new ProcFs(proc), ContainerNames.none()).ownerOf(99999)).isEmpty();
    }
}
