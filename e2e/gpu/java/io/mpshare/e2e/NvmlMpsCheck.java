package io.mpshare.e2e;

import io.mpshare.cli.MpsControlCommand;
import io.mpshare.mps.MpsBinary;
import io.mpshare.mps.ProcessMpsControl;
import io.mpshare.mps.SupervisorStatusClient;
import io.mpshare.nvml.FfmNvml;
import io.mpshare.nvml.Nvml;
import io.mpshare.nvml.NvmlException;
import picocli.CommandLine;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The GPU machine's driver for e2e/gpu/nvml-mps-check.sh: each verb prints what it sees, one fact a line,
 * with CHECK ok|FAIL lines the script counts.
 * <pre>
 *   nvml                        FfmNvml vs nvidia-smi; per-call cost; Xids
 *   procs                       NVML compute processes and MPS clients per GPU
 *   status PORT                 SupervisorStatusClient GET /status
 *   set-ceiling PORT DEV MIB    SupervisorStatusClient PUT /ceilings/DEV
 *   control PIPE CMD...         one ProcessMpsControl command, raw output
 *   mps-control ARGS...         mpshare mps-control (MpsControlCommand)
 * </pre>
 */
public final class NvmlMpsCheck {
    private static int failures;

    public static void main(String[] args) throws Exception {
        String verb = args.length == 0 ? "" : args[0];
        String[] rest = Arrays.copyOfRange(args, Math.min(1, args.length), args.length);
        switch (verb) {
            case "nvml" -> nvml();
            case "procs" -> {
                try {
                    procs();
                } catch (NvmlException e) {
                    check(false, "procs: " + e.getMessage());
                }
            }
            case "status" -> System.out.println(client(rest[0]).status());
            case "set-ceiling" -> System.out.println(client(rest[0]).setCeiling(Integer.parseInt(rest[1]), Long.parseLong(rest[2])));
            case "control" -> control(rest);
            case "mps-control" -> System.exit(new CommandLine(new MpsControlCommand()).execute(rest));
            default -> {
                System.err.println("verbs: nvml | procs | status PORT | set-ceiling PORT DEV MIB | control PIPE CMD... | mps-control ARGS...");
                System.exit(2);
            }
        }
        System.exit(failures == 0 ? 0 : 1);
    }

    private static SupervisorStatusClient client(String port) {
        return new SupervisorStatusClient(URI.create("http://127.0.0.1:" + port), Duration.ofSeconds(30));
    }

    private static void nvml() throws Exception {
        try (Nvml nvml = FfmNvml.open()) {
            System.out.println("driver " + nvml.driverVersion());
            int n = nvml.deviceCount();
            System.out.println("deviceCount " + n);
            List<String[]> smi = nvidiaSmi();
            check(smi.size() == n, "nvidia-smi lists " + smi.size() + " GPUs, NVML " + n);
            for (int i = 0; i < n; i++) {
                Nvml.DeviceInfo d = nvml.device(i);
                System.out.println("device " + d);
                if (i < smi.size()) {
                    String[] row = smi.get(i);
                    check(row[0].equals(String.valueOf(d.index())), "index " + d.index() + " vs nvidia-smi " + row[0]);
                    check(row[1].equals(d.uuid()), "uuid " + d.uuid() + " vs nvidia-smi " + row[1]);
                    check(row[2].equals(d.name()), "name " + d.name() + " vs nvidia-smi " + row[2]);
                    check(row[3].equals(String.valueOf(d.totalMib())), "memory.total " + d.totalMib() + " MiB vs nvidia-smi " + row[3]);
                }
                check(d.pciBusId().matches("[0-9A-Fa-f]{8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\\.[0-9]"), "pci bus id " + d.pciBusId());
                check(d.minor() >= 0, "minor " + d.minor());
                int rounds = 2000;
                long t0 = System.nanoTime();
                for (int k = 0; k < rounds; k++) nvml.mpsClients(i);
                long t1 = System.nanoTime();
                for (int k = 0; k < rounds; k++) nvml.computeProcesses(i);
                long t2 = System.nanoTime();
                System.out.printf("cost mpsClients %.1f us/call, computeProcesses %.1f us/call (%d calls each)%n",
                        (t1 - t0) / 1e3 / rounds, (t2 - t1) / 1e3 / rounds, rounds);
            }
            System.out.println("xids " + nvml.drainCriticalXids());
            try {
                nvml.device(n);
                check(false, "device(" + n + ") should fail");
            } catch (NvmlException e) {
                check(true, "device(" + n + ") fails cleanly: " + e.getMessage());
            }
        } catch (NvmlException e) {
            check(false, "FfmNvml.open: " + e.getMessage());
        }
    }

    private static void procs() {
        try (Nvml nvml = FfmNvml.open()) {
            for (int i = 0; i < nvml.deviceCount(); i++) {
                System.out.println("gpu " + i + " used " + nvml.device(i).usedMib() + " MiB");
                System.out.println("gpu " + i + " computeProcesses " + nvml.computeProcesses(i));
                System.out.println("gpu " + i + " mpsClients " + nvml.mpsClients(i));
            }
        }
    }

    private static void control(String[] rest) {
        ProcessMpsControl c = new ProcessMpsControl(new ProcessMpsControl.Config(MpsBinary.locate(java.util.Optional.empty()),
                Path.of(rest[0]), Path.of(rest[0]).resolveSibling("log"), Duration.ofSeconds(10)));
        String cmd = String.join(" ", Arrays.copyOfRange(rest, 1, rest.length));
        try {
            System.out.println("control '" + cmd + "' -> " + c.run(cmd).strip().replace('\n', ' '));
        } catch (RuntimeException e) {
            System.out.println("control '" + cmd + "' -> " + e);
        }
    }

    private static List<String[]> nvidiaSmi() throws Exception {
        Process p = new ProcessBuilder("nvidia-smi", "--query-gpu=index,uuid,name,memory.total", "--format=csv,noheader,nounits")
                .redirectErrorStream(true).start();
        List<String[]> rows = new ArrayList<>();
        try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line; (line = r.readLine()) != null; ) {
                System.out.println("nvidia-smi " + line);
                rows.add(Arrays.stream(line.split(",")).map(String::strip).toArray(String[]::new));
            }
        }
        p.waitFor();
        return rows;
    }

    private static void check(boolean ok, String what) {
        if (!ok) failures++;
        System.out.println("CHECK " + (ok ? "ok   " : "FAIL ") + what);
    }

}
