package io.mpshare.host;

import io.mpshare.core.model.Gpu;
import io.mpshare.host.api.ApiHandler;
import io.mpshare.host.api.ApiServer;
import io.mpshare.host.state.JobRecord;
import io.mpshare.host.state.ProcessTable;
import io.mpshare.host.state.StateStore;
import io.mpshare.mps.Backoff;
import io.mpshare.mps.Colour;
import io.mpshare.mps.MpsBinary;
import io.mpshare.mps.MpsException;
import io.mpshare.mps.MpsSupervisor;
import io.mpshare.mps.ProcessMpsControl;
import io.mpshare.mps.SupervisorConfig;
import io.mpshare.mps.SupervisorHttp;
import io.mpshare.mps.SupervisorMetrics;
import io.mpshare.mps.SupervisorPreflight;
import io.mpshare.mps.preflight.InstanceLock;
import io.mpshare.nvml.FfmNvml;
import io.mpshare.nvml.Nvml;
import io.mpshare.policing.ActionPolicy;
import io.mpshare.policing.EventSink;
import io.mpshare.policing.Evictor;
import io.mpshare.policing.LiveNodeView;
import io.mpshare.policing.MpsDaemons;
import io.mpshare.policing.Policer;
import io.mpshare.policing.PolicerConfig;
import io.mpshare.policing.proc.ProcFs;
import io.mpshare.policing.proc.ProcessTreeOwners;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;

/**
 * {@code mpshare host} wired by hand: real NVML (inventory and the policer's samples), the MPS supervisor
 * in-process, {@link HostService}, the policer with {@link ProcessTreeOwners} and the supervisor's servers
 * ({@link HostMpsServers}), the reaper, the API socket.
 * {@link #start} starts it all; {@link #close} (SIGTERM) stops the API, the policer and the daemon (left running
 * while clients are connected: their jobs stay in the state file), in that order.
 */
public final class HostRuntime implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(HostRuntime.class.getName());

    /** @param statusPort the supervisor's /status and /metrics on 127.0.0.1; 0 = off */
    public record Config(Path socket, String socketGroup, Path stateFile, Path runDir, Optional<Path> mpsBinary, long reserveMib,
                         ActionPolicy policy, boolean policeUnmanaged, Duration policerPeriod, Duration reapInterval, Backoff backoff, int statusPort) {}

    /** Start-up failed with a message a person can act on (no GPU, no NVML, no MPS binary). */
    public static final class StartException extends Exception {
        public StartException(String message) { super(message); }
    }

    private final ApiServer api;
    private final Policer policer;
    private final MpsSupervisor supervisor;
    private final SupervisorHttp http;
    private final ScheduledExecutorService work;
    private final ScheduledExecutorService supExec;
    private final Nvml nvml;
    /** The blue supervisor's lock of the run folder ({@link SupervisorPreflight}), held until {@link #close}. */
    private final InstanceLock claim;

    private HostRuntime(ApiServer api, Policer policer, MpsSupervisor supervisor, SupervisorHttp http, ScheduledExecutorService work,
                        ScheduledExecutorService supExec, Nvml nvml, InstanceLock claim) {
        this.claim = claim;
        this.api = api;
        this.policer = policer;
        this.supervisor = supervisor;
        this.http = http;
        this.work = work;
        this.supExec = supExec;
        this.nvml = nvml;
    }

    /** Starts host mode; a missing GPU, NVML or MPS binary is a {@link StartException} a person can act on. */
    public static HostRuntime start(Config c) throws StartException, IOException {
        InstanceLock claim = SupervisorPreflight.host(c.runDir(),   // before an orphan daemon is quit
                c.statusPort() > 0 ? Optional.of(new InetSocketAddress("127.0.0.1", c.statusPort())) : Optional.empty()).claim();
        Nvml nvml = openNvml();
        Path binary;
        try {
            binary = MpsBinary.locate(c.mpsBinary());
        } catch (MpsException e) {
            nvml.close();
            throw new StartException("the MPS control binary is missing: " + e.getMessage());
        }
        List<Gpu> gpus = new ArrayList<>();
        for (int i = 0; i < nvml.deviceCount(); i++) {
            Nvml.DeviceInfo d = nvml.device(i);
            gpus.add(new Gpu(d.index(), d.uuid(), d.name(), d.totalMib(), true));
        }
        Colour colour = Colour.DEFAULT;
        SupervisorConfig sc = SupervisorConfig.defaults(colour, c.runDir()).withBackoff(c.backoff(), Duration.ofMinutes(5));
        ProcessMpsControl control = new ProcessMpsControl(new ProcessMpsControl.Config(binary, sc.pipeDir(), sc.logDir(), Duration.ofSeconds(10)));
        quitIdleOrphan(control);
        ScheduledExecutorService supExec = Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().name("mps-supervisor").daemon().factory());
        SupervisorMetrics metrics = new SupervisorMetrics(colour);
        MpsSupervisor supervisor = new MpsSupervisor(sc, ProcessMpsControl.foregroundLauncher(binary), control, supExec, InstantSource.system(), metrics);
        SupervisorHttp http = c.statusPort() > 0 ? new SupervisorHttp(supervisor, metrics, new InetSocketAddress("127.0.0.1", c.statusPort())) : null;

        LiveNodeView view = new LiveNodeView();
        ProcFs proc = ProcFs.host();
        ProcessTreeOwners owners = new ProcessTreeOwners(proc);
        ProcessTable procs = ProcessTable.host();
        HostOwners hostOwners = new HostOwners(owners, procs, c.policeUnmanaged(), InstantSource.system(), Duration.ofSeconds(10));
        HostService service = new HostService(gpus, c.reserveMib(), DaemonGate.of(supervisor, sc.pipeDir()), new StateStore(c.stateFile()),
                procs, view, hostOwners, InstantSource.system());
        for (JobRecord j : service.restore()) LOG.info("restart: freed job " + j.id() + " (process " + j.pid() + " is gone)");
        LOG.info("restart: kept " + service.jobs().size() + " running job(s)");

        ApiHandler.RecentEvents recent = new ApiHandler.RecentEvents(200);
        EventSink log = EventSink.logging();
        ScheduledExecutorService work = Executors.newScheduledThreadPool(2, Thread.ofPlatform().name("host-work-", 0).daemon().factory());
        Evictor stopJob = (uid, reason) -> service.job(uid)
                .flatMap(j -> ProcessHandle.of(j.pid()))
                .map(h -> { h.destroy(); return Evictor.Result.EVICTED; })
                .orElse(Evictor.Result.GONE);
        Policer policer = Policer.builder()
                .config(PolicerConfig.defaults(HostService.NODE).withPolicy(c.policy()).withPeriod(c.policerPeriod()))
                .nvml(nvml).view(view).owners(hostOwners).servers(new HostMpsServers(supervisor::status, control, InstantSource.system()))
                .daemons(MpsDaemons.of(control))
                .events(e -> { log.emit(e); recent.add(e); }).evictor(stopJob)
                .clock(InstantSource.system()).executor(work).build();

        ApiServer api = new ApiServer(c.socket(), c.socketGroup(), new ApiHandler(service, policer::lastReport, recent::list));
        if (http != null) http.start();
        supervisor.start();
        policer.start();
        work.scheduleWithFixedDelay(() -> {
            try {
                for (JobRecord j : service.reap()) LOG.info("freed job " + j.id() + ": its process " + j.pid() + " ended");
            } catch (RuntimeException e) {
                LOG.warning("reaper: " + e);
            }
        }, c.reapInterval().toMillis(), c.reapInterval().toMillis(), TimeUnit.MILLISECONDS);
        api.start();
        LOG.info("mpshare host: " + gpus.size() + " GPU(s) " + gpus.stream().map(g -> g.index() + "=" + g.model() + " " + g.totalMib() + " MiB").toList()
                + ", driver " + nvml.driverVersion() + ", API on " + c.socket() + ", state " + c.stateFile() + ", MPS pipe " + sc.pipeDir());
        return new HostRuntime(api, policer, supervisor, http, work, supExec, nvml, claim);
    }

    @Override public void close() {
        api.close();
        policer.close();
        shutdown(supervisor);
        if (http != null) http.close();
        work.shutdownNow();
        supExec.shutdownNow();
        nvml.close();
        claim.close();
    }

    static Nvml openNvml() throws StartException {
        Nvml nvml;
        try {
            nvml = FfmNvml.open();
        } catch (RuntimeException | LinkageError e) {
            throw new StartException("no NVIDIA GPU here, or no NVML: " + e.getMessage() + " (is the NVIDIA driver installed and libnvidia-ml.so.1 on the library path?)");
        }
        int n;
        try {
            n = nvml.deviceCount();
        } catch (RuntimeException e) {
            nvml.close();
            throw new StartException("NVML cannot count the GPUs: " + e.getMessage());
        }
        if (n == 0) {
            nvml.close();
            throw new StartException("no NVIDIA GPU here: NVML (driver " + nvml.driverVersion() + ") sees none");
        }
        return nvml;
    }

    /** A daemon left on our pipe by an earlier run: quit it when idle; with clients it is left alone (docs/host-mode.md). */
    private static void quitIdleOrphan(ProcessMpsControl control) {
        try {
            if (!control.daemonUp()) return;
            List<Long> clients = new ArrayList<>();
            for (long s : control.serverPids()) clients.addAll(control.clientPids(s));
            if (clients.isEmpty()) {
                LOG.info("an idle MPS control daemon from an earlier run answers on our pipe: quitting it");
                control.quit();
            } else {
                LOG.warning("an MPS control daemon from an earlier run still serves clients " + clients
                        + ": new jobs wait until they end and it can be replaced");
            }
        } catch (RuntimeException e) {
            LOG.warning("checking for an earlier MPS control daemon: " + e.getMessage());
        }
    }

    private static void shutdown(MpsSupervisor supervisor) {
        try {
            MpsSupervisor.StopResult r = supervisor.stop(false).get(30, TimeUnit.SECONDS);
            if (r instanceof MpsSupervisor.StopResult.Refused ref)
                System.err.println("mpshare host: leaving the MPS control daemon running: clients " + ref.clients()
                        + " are connected and would fail; their jobs are kept in the state file");
        } catch (Exception e) {
            System.err.println("mpshare host: stopping the MPS control daemon: " + e);
        }
    }
}
