package io.mpshare.host;

import com.fasterxml.jackson.databind.JsonNode;
import io.mpshare.core.Names;
import io.mpshare.core.model.Gpu;
import io.mpshare.host.api.ApiHandler;
import io.mpshare.host.api.ApiServer;
import io.mpshare.host.api.HostClient;
import io.mpshare.host.state.JobRecord;
import io.mpshare.host.state.ProcessTable;
import io.mpshare.host.state.StateStore;
import io.mpshare.policing.LiveNodeView;
import io.mpshare.policing.proc.ProcFs;
import io.mpshare.policing.proc.ProcessTreeOwners;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** Host mode end to end without a GPU: the real service, a real unix socket, real child processes; a fake daemon. */
class HostIT {
    static final long H200 = 143_771;
    @TempDir Path dir;
    FakeGate gate;
    HostService service;
    ApiServer server;
    HostClient client;
    final List<Process> started = new ArrayList<>();

    static final class FakeGate implements DaemonGate {
        volatile boolean ready = true;
        final Map<Integer, Long> ceilings = new TreeMap<>();
        final List<String> sets = new ArrayList<>();
        @Override public boolean ready() { return ready; }
        @Override public String notReadyReason() { return "the MPS control daemon is not ready (phase BACKOFF)"; }
        @Override public Path pipeDir() { return Path.of("/run/mpshare/blue/pipe"); }
        @Override public synchronized void setCeiling(int device, long mib) {
            ceilings.put(device, mib);
            sets.add(device + "=" + mib);
        }
    }

    HostService newService() {
        return new HostService(List.of(new Gpu(0, "GPU-a", "NVIDIA H200", H200, true), new Gpu(1, "GPU-b", "NVIDIA H200", H200, true)),
                512, gate, new StateStore(dir.resolve("state.json")), ProcessTable.host(), new LiveNodeView(),
                new HostOwners(new ProcessTreeOwners(ProcFs.host()), ProcessTable.host(), true, InstantSource.system(), Duration.ofSeconds(10)), InstantSource.system());
    }

    @BeforeEach void setUp() throws Exception {
        gate = new FakeGate();
        service = newService();
        server = new ApiServer(dir.resolve("host.sock"), null, new ApiHandler(service, Optional::empty, List::of)).start();
        client = new HostClient(server.socket());
    }

    @AfterEach void tearDown() {
        server.close();
        started.forEach(Process::destroyForcibly);
    }

    int run(long mib, int core, int count, Duration wait, ByteArrayOutputStream err, String... cmd) throws Exception {
        return new JobRunner(client, new PrintStream(err, true), Duration.ofMillis(20)).run(mib, core, count, wait, List.of(cmd));
    }

    Process sleeper() throws Exception {
        Process p = new ProcessBuilder("sleep", "60").start();
        started.add(p);
        return p;
    }

    @Test void run_passesExitCodeAndCapsAndFreesTheJob() throws Exception {
        Path envOut = dir.resolve("env.txt");
        var err = new ByteArrayOutputStream();
        int code = run(7 * 1024, 30, 1, Duration.ZERO, err, "sh", "-c",
                "env | grep -E '^(CUDA_|NVIDIA_|MPSHARE_)' | sort > " + envOut + "; exit 3");
        assertThat(code).isEqualTo(3);
        String env = Files.readString(envOut);
        assertThat(env).contains(Names.ENV_MPS_MEM_LIMIT + "=0=7680M", Names.ENV_MPS_THREADS + "=30",
                Names.ENV_MPS_PIPE + "=/run/mpshare/blue/pipe", "CUDA_VISIBLE_DEVICES=GPU-a", "NVIDIA_VISIBLE_DEVICES=GPU-a");
        assertThat(service.jobs()).isEmpty();
        assertThat(service.node().allocatedMib()).isZero();
        assertThat(gate.sets).as("whole GiB, rounded up, while it ran; the floor once it left").containsSubsequence("0=8192", "0=1024");
        assertThat(gate.ceilings).containsEntry(0, 1024L);
    }

    /** The same rule as the cluster's ceiling controller (MpsLimits): an idle GPU sits at the 1 GiB floor. */
    @Test void ceilings_idleGpuAtTheFloor_lastJobLeaving_dropsItsGpuToTheFloor() throws Exception {
        Process holder = sleeper();
        var a = (Answer.Granted) service.allocate(new AllocationRequest(7 * 1024, 0, 1, holder.pid(), "u", List.of("train")));
        int used = a.job().gpuIndices().getFirst(), idle = 1 - used;
        assertThat(gate.ceilings).as("7 GiB + 512 MiB reserve, whole GiB up; the other GPU at the floor")
                .containsExactlyEntriesOf(new TreeMap<>(Map.of(used, 8192L, idle, 1024L)));
        var b = (Answer.Granted) service.allocate(new AllocationRequest(2 * 1024, 0, 1, holder.pid(), "u", List.of("small")));
        assertThat(b.job().gpuIndices()).containsExactly(used);
        service.release(a.job().id());
        assertThat(gate.ceilings).as("the larger job left: down to the small job's 2.5 GiB, rounded up").containsEntry(used, 3072L);
        service.release(b.job().id());
        assertThat(gate.ceilings).as("the GPU's last job left: the floor, not the last job's ceiling")
                .containsExactlyEntriesOf(new TreeMap<>(Map.of(0, 1024L, 1, 1024L)));
    }

    @Test void run_twoGpus_capPerOrdinal() throws Exception {
        Path envOut = dir.resolve("env.txt");
        int code = run(8 * 1024, 0, 2, Duration.ZERO, new ByteArrayOutputStream(), "sh", "-c", "echo $CUDA_MPS_PINNED_DEVICE_MEM_LIMIT $CUDA_VISIBLE_DEVICES > " + envOut);
        assertThat(code).isZero();
        assertThat(Files.readString(envOut).strip()).isEqualTo("0=4608M,1=4608M GPU-a,GPU-b");
    }

    @Test void run_daemonDown_refusesWithoutStartingTheCommand() throws Exception {
        gate.ready = false;
        Path marker = dir.resolve("ran");
        var err = new ByteArrayOutputStream();
        int code = run(2048, 0, 1, Duration.ZERO, err, "touch", marker.toString());
        assertThat(code).isEqualTo(JobRunner.REFUSED);
        assertThat(marker).doesNotExist();
        assertThat(err.toString()).contains("MPS control daemon is not ready").contains("no GPU memory cap");
    }

    @Test void run_tooLarge_saysTheLargestFree() throws Exception {
        var err = new ByteArrayOutputStream();
        assertThat(run(200 * 1024, 0, 1, Duration.ofSeconds(5), err, "true")).isEqualTo(JobRunner.REFUSED);
        assertThat(err.toString()).contains("more than the largest GPU here").contains("largest free now: 140.40 GiB");
    }

    @Test void run_commandMissing_freesTheJob() throws Exception {
        var err = new ByteArrayOutputStream();
        assertThat(run(1024, 0, 1, Duration.ZERO, err, "/no/such/command")).isEqualTo(JobRunner.CANNOT_START);
        assertThat(service.jobs()).isEmpty();
    }

    @Test void allocate_noRoom_isRetryable_andWaitGetsItOnceFreed() throws Exception {
        Process holder = sleeper();
        Answer big = service.allocate(new AllocationRequest(2 * 139 * 1024, 0, 2, holder.pid(), "u", List.of("big")));
        assertThat(big).isInstanceOf(Answer.Granted.class);
        Answer refused = service.allocate(new AllocationRequest(4096, 0, 1, ProcessHandle.current().pid(), "u", List.of("x")));
        assertThat(refused).isInstanceOfSatisfying(Answer.Refused.class, r -> {
            assertThat(r.code()).isEqualTo(Answer.Code.NO_ROOM);
            assertThat(r.retry()).isTrue();
            assertThat(r.message()).contains("largest free now");
        });
        Thread.ofVirtual().start(() -> { holder.destroyForcibly(); try { holder.waitFor(); } catch (InterruptedException e) { } service.reap(); });
        int code = run(4096, 0, 1, Duration.ofSeconds(30), new ByteArrayOutputStream(), "true");
        assertThat(code).isZero();
    }

    @Test void reap_afterKill9OfTheJob_freesIt() throws Exception {
        Process job = sleeper();
        var g = (Answer.Granted) service.allocate(new AllocationRequest(5 * 1024, 0, 1, ProcessHandle.current().pid(), "u", List.of("sleep")));
        assertThat(service.started(g.job().id(), job.pid())).isTrue();
        assertThat(service.reap()).isEmpty();
        new ProcessBuilder("kill", "-9", Long.toString(job.pid())).start().waitFor();
        job.waitFor(10, TimeUnit.SECONDS);
        assertThat(service.reap()).extracting(JobRecord::id).containsExactly(g.job().id());
        assertThat(service.node().allocatedMib()).isZero();
    }

    @Test void restart_keepsLiveJobs_freesDeadOnes_andReusedPids() throws Exception {
        Process live = sleeper();
        Process dead = sleeper();
        var a = (Answer.Granted) service.allocate(new AllocationRequest(2048, 0, 1, live.pid(), "u", List.of("live")));
        var b = (Answer.Granted) service.allocate(new AllocationRequest(5 * 1024, 0, 1, dead.pid(), "u", List.of("dead")));
        dead.destroyForcibly().waitFor();
        // a record whose PID runs but started at another time: a reused PID, not the job
        StateStore store = new StateStore(dir.resolve("state.json"));
        List<JobRecord> saved = new ArrayList<>(store.load());
        JobRecord a0 = saved.getFirst();
        saved.add(new JobRecord("job-reused", a0.pid(), a0.pidStart() - 1, List.of(1), List.of("GPU-b"), 1024, 0, 512, "u", List.of("x"), 0, true));
        store.save(saved);

        HostService restarted = newService();
        List<JobRecord> freed = restarted.restore();
        assertThat(freed).extracting(JobRecord::id).containsExactlyInAnyOrder(b.job().id(), "job-reused");
        assertThat(restarted.jobs()).extracting(JobRecord::id).containsExactly(a.job().id());
        assertThat(restarted.node().allocatedMib()).isEqualTo(2048 + 512);
        assertThat(new StateStore(dir.resolve("state.json")).load()).extracting(JobRecord::id).containsExactly(a.job().id());
    }

    @Test void socket_isGroupReadWriteOnly_andPsListsJobs() throws Exception {
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(server.socket()))).isEqualTo("rw-rw----");
        Process job = sleeper();
        service.allocate(new AllocationRequest(3 * 1024, 25, 1, job.pid(), "alice", List.of("python", "train.py")));
        JsonNode ps = client.ps();
        assertThat(ps.path("jobs").get(0).path("command").asText()).isEqualTo("python train.py");
        assertThat(ps.path("jobs").get(0).path("capMibPerGpu").asLong()).isEqualTo(3 * 1024 + 512);
        assertThat(ps.path("gpus").get(0).path("allocatedMib").asLong()).isEqualTo(3 * 1024 + 512);
        assertThat(PsFormat.text(ps)).contains("python train.py").contains("25%");
    }

    @Test void client_hostNotRunning_saysSo() {
        var c = new HostClient(dir.resolve("none.sock"));
        org.assertj.core.api.Assertions.assertThatThrownBy(c::ps).isInstanceOf(HostClient.Unreachable.class).hasMessageContaining("mpshare host is not running");
    }

    @Test void api_badRequest_isAnswered() throws Exception {
        JsonNode a = client.call(new com.fasterxml.jackson.databind.ObjectMapper().createObjectNode().put("op", "bogus"));
        assertThat(a.path("ok").asBoolean()).isFalse();
        assertThat(a.path("code").asText()).isEqualTo("BAD_REQUEST");
    }
}
