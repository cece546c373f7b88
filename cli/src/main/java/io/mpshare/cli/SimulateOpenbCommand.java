package io.mpshare.cli;

import io.mpshare.sim.openb.OpenbReplayMain;
import io.mpshare.sim.openb.OpenbTrace;
import io.mpshare.sim.openb.Policies;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code mpshare simulate --trace-format openb --nodes NODES.csv --pods PODS.csv [...]}: replays Alibaba's
 * openb traces (ATC'23 "Beware of Fragmentation") with the paper's method and compares placement policies
 * with the published figures (docs/trace-replay.md). {@link Main} hands {@code simulate} over to this class
 * when the arguments name {@code --trace-format}, because these flags take files where the built-in
 * simulation's {@code --nodes}/{@code --pods} take counts.
 */
@Command(name = "simulate", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Replay an openb GPU trace (Alibaba cluster-trace-gpu-v2023) under several placement policies and seeds; "
                + "prints mean/spread vs the published figures and writes an HTML report with allocation curves.")
public final class SimulateOpenbCommand implements Callable<Integer> {
    @Option(names = "--trace-format", required = true, paramLabel = "FORMAT", description = "Trace format: openb.")
    String format;

    @Option(names = "--nodes", required = true, paramLabel = "NODES.csv", description = "Node list: sn,cpu_milli,memory_mib,gpu,model.")
    Path nodes;

    @Option(names = "--pods", required = true, paramLabel = "PODS.csv",
            description = "Task list (name,cpu_milli,memory_mib,num_gpu,gpu_milli[,gpu_spec,...]); repeat for several traces.")
    List<Path> pods = new ArrayList<>();

    @Option(names = "--seeds", paramLabel = "SEEDS", description = "Seeds, e.g. 42-51 or 42,43 (default: ${DEFAULT-VALUE}).")
    String seeds = "42-51";

    @Option(names = "--policies", paramLabel = "LIST",
            description = "random,bestfit,gpupacking,fgd,default or all (default: ${DEFAULT-VALUE}).")
    String policies = "all";

    @Option(names = "--gpu-mib", paramLabel = "MODEL=MIB",
            description = "Memory of a GPU model the tool does not know (openb anonymises G2, G3); '*=MIB' for all unknown ones.")
    List<String> gpuMib = new ArrayList<>();

    @Option(names = "--threads", description = "Replays in parallel (default: the number of CPUs).")
    int threads = Runtime.getRuntime().availableProcessors();

    @Option(names = "--out", paramLabel = "FILE", description = "Where to write the HTML report (default: ${DEFAULT-VALUE}).")
    Path out = Path.of("mpshare-openb-report.html");

    @Override public Integer call() {
        if (!format.equalsIgnoreCase("openb")) {
            System.err.println("mpshare simulate: --trace-format " + format + " is not known; the one trace format is openb");
            return 2;
        }
        try {
            var o = new OpenbReplayMain.Options(nodes, pods, OpenbReplayMain.parseSeeds(seeds), Policies.parse(policies),
                    Math.max(1, threads), gpuMib, 1.30, out);
            OpenbReplayMain.run(o, System.out);
            return 0;
        } catch (OpenbTrace.TraceException e) {
            System.err.println("mpshare simulate: " + e.getMessage() + "; nothing was replayed");
            return 1;
        } catch (IllegalArgumentException e) {
            System.err.println("mpshare simulate: " + e.getMessage());
            return 2;
        } catch (java.nio.file.NoSuchFileException e) {
            System.err.println("mpshare simulate: " + e.getFile() + ": no such file");
            return 1;
        } catch (IOException e) {
            System.err.println("mpshare simulate: " + e.getMessage());
            return 1;
        }
    }
}
