package io.mpshare.mps.fake;

import io.mpshare.mps.DaemonLauncher;
import io.mpshare.mps.DomainStatus.Holder;
import io.mpshare.mps.MpsControl;
import io.mpshare.mps.MpsSupervisor;
import io.mpshare.mps.fake.FakeMpsControl.Connection;
import io.mpshare.mps.fault.FaultSource;
import io.mpshare.mps.fault.LogFaultSource;
import io.mpshare.mps.fault.XidFaultSource;
import io.mpshare.mps.proc.HolderFinder;
import io.mpshare.nvml.fake.FakeNvml;

import java.nio.file.Path;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * A GPU node as MPS behaves on it (FACTS.md), for a real {@link MpsSupervisor} running domains: GPUs (an NVML fake that
 * reports Xids), one process table, and a modelled control daemon ({@link FakeMpsControl}) per pipe directory, started by
 * this node's launcher with {@code CUDA_VISIBLE_DEVICES=<gpu>} and logging where its spec says. What the model does is
 * FakeMpsControl's: a fault takes every client of that server down and keeps new clients out until they have exited,
 * and leaves every other daemon's clients alone; held {@code control} connections stall one daemon. The kernel's Xid 31
 * for a fault goes to the NVML fake, naming the GPU (and, in the kernel log, a victim).
 *
 * <pre>{@code
 * FakeMpsNode node = new FakeMpsNode(2);                       // GPU-fake-0, GPU-fake-1
 * MpsSupervisor s = new MpsSupervisor(config, node.parts(clock), clock, clock, metrics);
 * long a = node.client(pipeDir, 1000, 100);                    // a client of UID 1000 on that domain's daemon
 * node.fault(a);                                               // every client of a's server faulted; Xid 31 on its GPU
 * }</pre>
 * Thread-safe.
 */
public final class FakeMpsNode implements DaemonLauncher, HolderFinder {
    private final FakeProcesses processes = new FakeProcesses();
    private final FakeNvml nvml = new FakeNvml();
    private final Map<Path, FakeMpsControl> daemons = new LinkedHashMap<>();
    private final Map<Path, FakeDaemonLauncher.FakeDaemon> running = new LinkedHashMap<>();
    private final List<Spec> starts = new ArrayList<>();

    /** A node with {@code gpus} H200s, {@code GPU-fake-0} … */
    public FakeMpsNode(int gpus) {
        for (int i = 0; i < gpus; i++) nvml.addH200();
    }

    public String gpu(int index) { return "GPU-fake-" + index; }

    public FakeNvml nvml() { return nvml; }

    /** The daemon on {@code pipeDir} (a stopped one when none was started there yet). */
    public synchronized FakeMpsControl daemon(Path pipeDir) {
        return daemons.computeIfAbsent(pipeDir, p -> {
            FakeMpsControl c = new FakeMpsControl(processes, null);
            c.crash(); // nothing answers until a daemon is started there
            return c;
        });
    }

    /** Every start so far, in order. */
    public synchronized List<Spec> starts() { return List.copyOf(starts); }

    /** The running daemon process on {@code pipeDir}, if any. */
    public synchronized Optional<FakeDaemonLauncher.FakeDaemon> daemonProcess(Path pipeDir) {
        return Optional.ofNullable(running.get(pipeDir)).filter(FakeDaemonLauncher.FakeDaemon::isAlive);
    }

    /**
     * What a supervisor on this node is built from: this launcher, a control per pipe directory, commands on the
     * supervisor's thread, and the domains' logs and this node's Xids as fault detectors.
     */
    public MpsSupervisor.Parts parts(Path nodePipeDir, InstantSource clock) {
        List<FaultSource> sources = List.of(new LogFaultSource(clock), new XidFaultSource(nvml, clock));
        return new MpsSupervisor.Parts(this, daemon(nodePipeDir), this::daemon, null, sources, null);
    }

    // ---- what clients and tenants do ----

    /** A client process of UID {@code uid} connects through {@code pipeDir} asking {@code envPercent} of the SMs; its PID. */
    public long client(Path pipeDir, int uid, int envPercent) {
        long pid = processes.spawn(1, uid, "python3 train.py");
        Connection c = daemon(pipeDir).connect(pid, envPercent);
        if (!(c instanceof Connection.Served)) throw new IllegalStateException("client not served on " + pipeDir + ": " + c);
        return pid;
    }

    /** A new client tries to connect; what MPS answered (it exits at once when not served). */
    public Connection tryClient(Path pipeDir, int uid) {
        long pid = processes.spawn(1, uid, "python3 train.py");
        Connection c = daemon(pipeDir).connect(pid, 100);
        if (!(c instanceof Connection.Served)) processes.exit(pid);
        return c;
    }

    /**
     * Client {@code pid}'s kernel writes to an illegal address: every client of its server is faulted at once (their
     * processes stay until they exit or are killed); the kernel raises Xid 31 on the daemon's GPU.
     */
    public synchronized List<Long> fault(long pid) {
        for (FakeMpsControl c : daemons.values()) {
            if (c.processesServed().contains(pid)) {
                List<Long> faulted = c.fault(pid);
                if (c.gpu() != null) nvml.injectXid(Integer.parseInt(c.gpu().substring("GPU-fake-".length())), 31);
                return faulted;
            }
        }
        throw new IllegalArgumentException("no daemon serves " + pid);
    }

    /** A process of UID {@code uid} opens {@code n} connections on {@code pipeDir}'s control socket and holds them; its PID. */
    public long holdControl(Path pipeDir, int uid, int n) {
        long pid = processes.spawn(1, uid, "python3 /tmp/hold.py " + n);
        daemon(pipeDir).holdConnections(pid, n);
        return pid;
    }

    // ---- DaemonLauncher ----

    @Override public synchronized Daemon start(Spec spec) {
        starts.add(spec);
        FakeMpsControl c = daemon(spec.pipeDir()); // the supervisor's control for this pipe reaches the new daemon
        c.serve(spec.extraEnv().get("CUDA_VISIBLE_DEVICES"));
        c.restart();
        long pid = processes.spawn(1, 0, "nvidia-cuda-mps-control -f");
        c.attach(pid, spec.output().orElse(null));
        FakeDaemonLauncher.FakeDaemon d = new FakeDaemonLauncher.FakeDaemon(pid, c);
        c.onQuit(() -> d.exit(0));
        running.put(spec.pipeDir(), d);
        return d;
    }

    @Override public synchronized Optional<Daemon> adopt(long pid, Instant startedAt) {
        return running.values().stream().filter(d -> d.pid() == pid && d.isAlive() && d.startedAt().orElseThrow().equals(startedAt))
                .map(d -> (Daemon) d).findFirst();
    }

    @Override public FakeProcesses processes() { return processes; }

    @Override public HolderFinder holders() { return this; }

    @Override public synchronized List<Holder> find(Path controlSocket, long daemonPid, Set<Long> exclude) {
        FakeMpsControl c = daemons.get(controlSocket.getParent());
        return c == null ? List.of() : c.holders().stream().filter(h -> !exclude.contains(h.pid())).toList();
    }

    /** A daemon's exit ends its servers; nothing else is told (as a real SIGKILL). */
    public synchronized CompletableFuture<Integer> killDaemon(Path pipeDir) {
        FakeDaemonLauncher.FakeDaemon d = running.get(pipeDir);
        d.kill();
        return d.onExit();
    }

    /** The control of each started daemon, for tests that inspect commands. */
    public synchronized Map<Path, MpsControl> controls() { return Map.copyOf(daemons); }
}
