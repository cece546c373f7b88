package io.mpshare.policing.harness;

import io.mpshare.mps.MpsBinary;
import io.mpshare.mps.ProcessMpsControl;
import io.mpshare.nvml.FfmNvml;
import io.mpshare.nvml.Nvml;
import io.mpshare.policing.ActionPolicy;
import io.mpshare.policing.CycleReport;
import io.mpshare.policing.MpsDaemons;
import io.mpshare.policing.NodeView;
import io.mpshare.policing.Owner;
import io.mpshare.policing.Policer;
import io.mpshare.policing.PolicerConfig;
import io.mpshare.policing.PolicerEvent;
import io.mpshare.policing.proc.ProcFs;
import io.mpshare.policing.proc.ProcessTreeOwners;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Runs the real policer on a GPU machine without Kubernetes, for e2e/gpu: real NVML (FfmNvml), the real
 * control daemon (ProcessMpsControl on a pipe directory), real SIGKILL, jobs from a {@link JobSpec} file.
 * Prints one JSON line per event and one per cycle on stdout.
 * <pre>
 * java --enable-native-access=ALL-UNNAMED -cp 'lib/*' io.mpshare.policing.harness.PolicerHarness \
 *   --spec jobs.txt --pipe /tmp/mps/pipe --log /tmp/mps/log [--policy terminate] [--period-ms 1000] [--seconds 60] [--proc /proc]
 * </pre>
 */
public final class PolicerHarness {
    private PolicerHarness() {}

    public static void main(String[] args) throws Exception {
        Map<String, String> a = new HashMap<>(Map.of("--policy", "terminate", "--period-ms", "1000", "--seconds", "60", "--proc", "/proc"));
        for (int i = 0; i + 1 < args.length; i += 2) a.put(args[i], args[i + 1]);
        for (String k : List.of("--spec", "--pipe", "--log"))
            if (!a.containsKey(k)) { System.err.println("PolicerHarness: " + k + " is required"); System.exit(2); }
        Path spec = Path.of(a.get("--spec"));
        PrintStream out = System.out;
        ProcFs proc = new ProcFs(Path.of(a.get("--proc")));
        try (Nvml nvml = FfmNvml.open()) {
            var control = new ProcessMpsControl(new ProcessMpsControl.Config(MpsBinary.locate(Optional.ofNullable(a.get("--mps-control")).map(Path::of)),
                    Path.of(a.get("--pipe")), Path.of(a.get("--log")), Duration.ofSeconds(5)));
            var owners = new ProcessTreeOwners(proc);
            List<JobSpec> jobs = new ArrayList<>();
            NodeView view = () -> jobs.stream().map(JobSpec::allocation).toList();
            Policer policer = Policer.builder()
                    .config(PolicerConfig.defaults("harness").withPolicy(ActionPolicy.parse(a.get("--policy")))
                            .withPeriod(Duration.ofMillis(Long.parseLong(a.get("--period-ms")))).withProcRoot(proc.root()))
                    .nvml(nvml).view(view).owners(owners).daemons(MpsDaemons.of(control))
                    .events(e -> out.println(json(e))).build();
            long period = Long.parseLong(a.get("--period-ms"));
            long end = System.nanoTime() + Duration.ofSeconds(Long.parseLong(a.get("--seconds"))).toNanos();
            while (System.nanoTime() < end) {
                long start = System.nanoTime();
                reload(spec, jobs, owners);
                CycleReport r = policer.runOnce();
                out.println(json(r, (System.nanoTime() - start) / 1_000_000));
                out.flush();
                long left = period - (System.nanoTime() - start) / 1_000_000;
                if (left > 0) Thread.sleep(left); // a real-time harness: the one place that sleeps
            }
        }
    }

    private static void reload(Path spec, List<JobSpec> jobs, ProcessTreeOwners owners) throws IOException {
        List<JobSpec> now = Files.exists(spec) ? JobSpec.parse(Files.readString(spec)) : List.of();
        for (JobSpec j : jobs) j.pids().forEach(owners::unregister);
        jobs.clear();
        jobs.addAll(now);
        for (JobSpec j : jobs) j.pids().forEach(p -> owners.register(p, Owner.pod(j.name())));
    }

    static String json(PolicerEvent e) {
        return "{\"type\":\"event\",\"at\":\"" + e.at() + "\",\"wall\":\"" + Instant.now() + "\",\"reason\":\"" + e.reason()
                + "\",\"pod\":\"" + esc(e.podUid()) + "\",\"gpu\":" + e.gpu() + ",\"pid\":" + e.pid() + ",\"message\":\"" + esc(e.message()) + "\"}";
    }

    static String json(CycleReport r, long cycleMillis) {
        StringBuilder sb = new StringBuilder("{\"type\":\"cycle\",\"at\":\"").append(r.snapshot().at()).append("\",\"cycleMs\":").append(cycleMillis);
        sb.append(",\"gpus\":[");
        r.snapshot().gpus().forEach(g -> sb.append("{\"index\":").append(g.index()).append(",\"usedMib\":").append(g.usedMib())
                .append(",\"processes\":").append(g.processes().size()).append(",\"error\":\"").append(esc(g.error())).append("\"},"));
        trim(sb).append("],\"findings\":[");
        r.findings().forEach(f -> sb.append("{\"reason\":\"").append(f.reason()).append("\",\"gpu\":").append(f.gpu())
                .append(",\"key\":\"").append(esc(f.key())).append("\"},"));
        trim(sb).append("],\"outcomes\":[");
        r.outcomes().forEach(o -> sb.append("{\"action\":\"").append(o.action().kind()).append("\",\"key\":\"").append(esc(o.action().key()))
                .append("\",\"result\":\"").append(o.result()).append("\",\"detail\":\"").append(esc(o.detail())).append("\"},"));
        trim(sb).append("],\"usage\":{");
        r.usage().forEach((uid, u) -> sb.append('"').append(esc(uid)).append("\":\"").append(esc(io.mpshare.core.codec.UsageCodec.encode(u))).append("\","));
        return trim(sb).append("}}").toString();
    }

    private static StringBuilder trim(StringBuilder sb) {
        if (sb.charAt(sb.length() - 1) == ',') sb.setLength(sb.length() - 1);
        return sb;
    }

    private static String esc(String s) {
        StringBuilder b = new StringBuilder();
        for (char c : s.toCharArray()) {
            switch (c) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                default -> { if (c < 0x20) b.append(String.format("\\u%04x", (int) c)); else b.append(c); }
            }
        }
        return b.toString();
    }
}
