package io.mpshare.policing.harness;

import io.mpshare.core.ledger.Allocation;
import io.mpshare.core.ledger.Phase;
import io.mpshare.core.model.ContainerShare;
import io.mpshare.core.model.GpuDemand;
import io.mpshare.core.model.PodKey;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

/**
 * The harness's stand-in for pods: one line per job, re-read every cycle so a driver script can add a job
 * as soon as it has started its processes.
 * <pre>
 * # job NAME gpus=I[,J] request=MIB_PER_GPU [reserve=MIB] [core=PCT] pids=ROOT[,ROOT...]
 * job tamper    gpus=0 request=2048 reserve=512 pids=4242
 * job group     gpus=0 request=2048 pids=4300,4301,4302,4303
 * </pre>
 * Each job becomes an allocation (namespace {@code harness}, pod and UID = NAME, one container
 * {@code main}) and its root PIDs and their descendants belong to it.
 */
record JobSpec(String name, List<Integer> gpus, long requestMib, long reserveMib, int core, List<Long> pids) {
    static final long DEFAULT_RESERVE = io.mpshare.core.Names.DEFAULT_CONTEXT_RESERVE_MIB;

    JobSpec {
        gpus = List.copyOf(gpus);
        pids = List.copyOf(pids);
        if (gpus.isEmpty()) throw new IllegalArgumentException("job " + name + ": gpus= is missing");
        if (requestMib <= 0) throw new IllegalArgumentException("job " + name + ": request= must be > 0");
    }

    Allocation allocation() {
        var c = new ContainerShare("main", false, requestMib, core);
        var d = new GpuDemand(gpus.size(), requestMib + reserveMib, core, reserveMib, requestMib * gpus.size(), List.of(c), OptionalLong.empty());
        return new Allocation(PodKey.of("harness", name), name, "harness", gpus, gpus.stream().map(g -> "gpu-" + g).toList(), d,
                Instant.EPOCH, Phase.ASSIGNED);
    }

    /** Parses the whole file; blank lines and {@code #} comments are skipped. */
    static List<JobSpec> parse(String text) {
        List<JobSpec> out = new ArrayList<>();
        int n = 0;
        for (String raw : text.split("\n")) {
            n++;
            String line = raw.strip();
            if (line.isEmpty() || line.startsWith("#")) continue;
            String[] w = line.split("\\s+");
            if (!w[0].equals("job") || w.length < 2) throw new IllegalArgumentException("line " + n + ": expected 'job NAME key=value...': " + line);
            Map<String, String> kv = new LinkedHashMap<>();
            for (int i = 2; i < w.length; i++) {
                int eq = w[i].indexOf('=');
                if (eq < 0) throw new IllegalArgumentException("line " + n + ": '" + w[i] + "' is not key=value");
                kv.put(w[i].substring(0, eq), w[i].substring(eq + 1));
            }
            try {
                out.add(new JobSpec(w[1], ints(kv.getOrDefault("gpus", "")), Long.parseLong(kv.getOrDefault("request", "0")),
                        Long.parseLong(kv.getOrDefault("reserve", Long.toString(DEFAULT_RESERVE))),
                        Integer.parseInt(kv.getOrDefault("core", "0")), longs(kv.getOrDefault("pids", ""))));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("line " + n + ": bad number: " + e.getMessage());
            }
        }
        return out;
    }

    private static List<Integer> ints(String s) {
        return s.isBlank() ? List.of() : java.util.Arrays.stream(s.split(",")).map(String::strip).map(Integer::parseInt).toList();
    }

    private static List<Long> longs(String s) {
        return s.isBlank() ? List.of() : java.util.Arrays.stream(s.split(",")).map(String::strip).map(Long::parseLong).toList();
    }
}
