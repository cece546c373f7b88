package io.mpshare.policing.proc;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.argumentSet;

class CgroupParserTest {
    static final String UID = "1b2c3d4e-5f60-4a7b-8c9d-0e1f2a3b4c5d";
    static final String UID_ = UID.replace('-', '_');
    static final String STATIC_UID = "6b7b8a0c1f1e8c7b2ba0fa7e6d0e1b2c";
    static final String ID = "3f4e5d6c7b8a99887766554433221100ffeeddccbbaa00112233445566778899";

    record Case(String cgroupFile, String podUid, String containerId, String runtime) {}

    static Stream<org.junit.jupiter.params.provider.Arguments> layouts() {
        return Stream.of(
                argumentSet("v2, systemd, containerd, burstable", new Case(
                        "0::/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" + UID_ + ".slice/cri-containerd-" + ID + ".scope\n",
                        UID, ID, "containerd")),
                argumentSet("v2, systemd, containerd, guaranteed", new Case(
                        "0::/kubepods.slice/kubepods-pod" + UID_ + ".slice/cri-containerd-" + ID + ".scope\n", UID, ID, "containerd")),
                argumentSet("v2, systemd, CRI-O, besteffort", new Case(
                        "0::/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod" + UID_ + ".slice/crio-" + ID + ".scope\n",
                        UID, ID, "crio")),
                argumentSet("v2, systemd, Docker (cri-dockerd)", new Case(
                        "0::/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" + UID_ + ".slice/docker-" + ID + ".scope\n",
                        UID, ID, "docker")),
                argumentSet("v2, cgroupfs, containerd", new Case(
                        "0::/kubepods/burstable/pod" + UID + "/" + ID + "\n", UID, ID, "")),
                argumentSet("v2, cgroupfs, guaranteed", new Case("0::/kubepods/pod" + UID + "/" + ID + "\n", UID, ID, "")),
                argumentSet("v2, cgroupfs, CRI-O", new Case("0::/kubepods/besteffort/pod" + UID + "/crio-" + ID + "\n", UID, ID, "crio")),
                argumentSet("v2, seen from a private cgroup namespace", new Case(
                        "0::/../../kubepods-besteffort-pod" + UID_ + ".slice/cri-containerd-" + ID + ".scope\n", UID, ID, "containerd")),
                argumentSet("v2, kind node (containerd slice:prefix:id)", new Case(
                        "0::/kubelet.slice/kubelet-kubepods.slice/kubelet-kubepods-besteffort.slice/kubelet-kubepods-besteffort-pod" + UID_
                                + ".slice:cri-containerd:" + ID + "\n", UID, ID, "containerd")),
                argumentSet("v1, systemd, containerd (several controllers)", new Case("""
                        12:pids:/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod%1$s.slice/cri-containerd-%2$s.scope
                        11:memory:/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod%1$s.slice/cri-containerd-%2$s.scope
                        3:cpu,cpuacct:/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod%1$s.slice/cri-containerd-%2$s.scope
                        1:name=systemd:/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod%1$s.slice/cri-containerd-%2$s.scope
                        0::/
                        """.formatted(UID_, ID), UID, ID, "containerd")),
                argumentSet("v1, cgroupfs, Docker", new Case("""
                        11:memory:/kubepods/burstable/pod%1$s/%2$s
                        4:devices:/kubepods/burstable/pod%1$s/%2$s
                        1:name=systemd:/kubepods/burstable/pod%1$s/%2$s
                        """.formatted(UID, ID), UID, ID, "")),
                argumentSet("v1, systemd, CRI-O, pod line after a host line", new Case("""
                        13:rdma:/
                        12:memory:/kubepods.slice/kubepods-pod%1$s.slice/crio-%2$s.scope
                        """.formatted(UID_, ID), UID, ID, "crio")),
                argumentSet("static pod UID (32 hex, no separators)", new Case(
                        "0::/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" + STATIC_UID + ".slice/cri-containerd-" + ID + ".scope\n",
                        STATIC_UID, ID, "containerd")),
                argumentSet("pod-level cgroup only (sandbox or pod process)", new Case(
                        "0::/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" + UID_ + ".slice\n", UID, null, "")),
                argumentSet("plain Docker, cgroupfs (no pod)", new Case("0::/docker/" + ID + "\n", null, ID, "")),
                argumentSet("plain Docker, systemd (no pod)", new Case("0::/system.slice/docker-" + ID + ".scope\n", null, ID, "docker")),
                argumentSet("host process, v2", new Case("0::/user.slice/user-1000.slice/session-3.scope\n", null, null, "")),
                argumentSet("host service, v1", new Case("12:memory:/system.slice/nvidia-persistenced.service\n0::/\n", null, null, "")),
                argumentSet("CRI-O conmon is not the container", new Case(
                        "0::/kubepods.slice/kubepods-pod" + UID_ + ".slice/crio-conmon-" + ID + ".scope\n", UID, null, "")),
                argumentSet("upper-case hex is normalised", new Case(
                        "0::/kubepods/pod" + UID.toUpperCase() + "/" + ID.toUpperCase() + "\n", UID, ID, "")),
                argumentSet("empty file", new Case("", null, null, "")));
    }

    @ParameterizedTest
    @MethodSource("layouts")
    void parse_layout(Case c) {
        CgroupRef r = CgroupParser.parse(c.cgroupFile());
        assertThat(r.podUid().orElse(null)).isEqualTo(c.podUid());
        assertThat(r.containerId().orElse(null)).isEqualTo(c.containerId());
        assertThat(r.runtime()).isEqualTo(c.runtime());
    }

    @Test
    void bareId_stripsTheStatusScheme() {
        assertThat(CgroupParser.bareId("containerd://" + ID)).isEqualTo(ID);
        assertThat(CgroupParser.bareId("cri-o://" + ID)).isEqualTo(ID);
        assertThat(CgroupParser.bareId("docker://" + ID.toUpperCase())).isEqualTo(ID);
        assertThat(CgroupParser.bareId(ID)).isEqualTo(ID);
        assertThat(CgroupParser.bareId(null)).isEmpty();
    }
}
