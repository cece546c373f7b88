package io.mpshare.cli;

import io.mpshare.sim.openb.OpenbTrace;
import io.mpshare.sim.openb.Policies;
import io.mpshare.sim.openb.ReplayRun;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.stream.Stream;

/**
 * {@code mpshare simulate --trace-format openb --nodes NODES.csv --pods PODS.csv [...]}: replays Alibaba's
 * openb traces (ATC'23 "Beware of Fragmentation") with the paper's method and compares placement policies
 * with the published figures (docs/trace-replay.md). {@link Main} hands {@code simulate} over to this class
 * when the arguments name {@code --trace-format}, because these flags take files where the built-in
 * simulation's {@code --nodes}/{@code --pods} take counts. {@code mpshare simulate --help} shows these options
 * as its "Trace replay (Alibaba openb)" section ({@link ReplayHelpSection}).
 */
@Command(name = "simulate", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Replay an openb GPU trace (Alibaba cluster-trace-gpu-v2023) under several placement policies and seeds; "
                + "prints mean/spread vs the published figures and writes an HTML report with allocation curves.")
public final class SimulateOpenbCommand implements Callable<Integer> {
    /** What {@code --policies} takes besides the names of {@link Policies}. */
    static final String ALL_POLICIES = "all";

    @Spec CommandSpec spec;

    @Option(names = "--trace-format", required = true, paramLabel = "FORMAT", description = "Trace format: openb (the only one; selects the replay).")
    String format;

    @Option(names = "--nodes", required = true, paramLabel = "NODES.csv",
            description = "Node list, e.g. openb_node_list_gpu_node.csv: sn,cpu_milli,memory_mib,gpu,model (required).")
    Path nodes;

    @Option(names = "--pods", required = true, paramLabel = "PODS.csv",
            description = "Task list, e.g. openb_pod_list_default.csv: name,cpu_milli,memory_mib,num_gpu,gpu_milli[,gpu_spec,...]; "
                    + "repeat for several traces (required).")
    List<Path> pods = new ArrayList<>();

    @Option(names = "--seeds", paramLabel = "SEEDS", description = "Resampling seeds: a range 42-51 or a list 42,43; one replay per seed, policy and trace (default: ${DEFAULT-VALUE}).")
    String seeds = "42-51";

    @Option(names = "--policies", paramLabel = "LIST", completionCandidates = PolicyNames.class,
            description = "Policies, comma-separated: ${COMPLETION-CANDIDATES}; fgd is the paper's FGD, default is mpshare's (default: ${DEFAULT-VALUE}).")
    String policies = ALL_POLICIES;

    /** The names --policies takes: each replay policy's, then "all". */
    static final class PolicyNames implements Iterable<String> {
        @Override public Iterator<String> iterator() {
            return Stream.concat(Arrays.stream(Policies.values()).map(p -> p.cliName), Stream.of(ALL_POLICIES)).iterator();
        }
    }

    @Option(names = "--gpu-mib", paramLabel = "MODEL=MIB",
            description = "Memory of a GPU model the tool does not know (openb anonymises G2, G3); '*=MIB' for every unknown one; repeatable (default: none).")
    List<String> gpuMib = new ArrayList<>();

    @Option(names = "--threads", paramLabel = "N", description = "Replays in parallel (default: the number of CPUs).")
    int threads = Runtime.getRuntime().availableProcessors();

    @Option(names = "--out", paramLabel = "FILE", description = "Where to write the HTML report (default: ${DEFAULT-VALUE}).")
    Path out = Path.of("mpshare-openb-report.html");

    @Override public Integer call() {
        PrintWriter err = spec.commandLine().getErr();
        String problem = problem();
        if (problem != null) return fail(err, problem, problem.contains("no such file") ? ExitCodes.FAILED : ExitCodes.USAGE);
        try {
            var o = new ReplayRun.Options(nodes, pods, ReplayRun.parseSeeds(seeds), Policies.parse(policies),
                    threads, gpuMib, 1.30, out);
            var table = new ByteArrayOutputStream(); // the replay prints its table once all runs are done
            ReplayRun.run(o, new PrintStream(table, true, StandardCharsets.UTF_8));
            spec.commandLine().getOut().print(table.toString(StandardCharsets.UTF_8));
            spec.commandLine().getOut().flush();
            return 0;
        } catch (OpenbTrace.TraceException e) {
            return fail(err, e.getMessage() + "; nothing was replayed", ExitCodes.FAILED);
        } catch (IllegalArgumentException e) {
            return fail(err, e.getMessage(), ExitCodes.USAGE);
        } catch (NoSuchFileException e) {
            return fail(err, e.getFile() + ": no such file", ExitCodes.FAILED);
        } catch (IOException e) {
            return fail(err, e.getMessage(), ExitCodes.FAILED);
        }
    }

    /** What is wrong with the options before anything is read, in one line; null when nothing is. */
    String problem() {
        if (!format.equalsIgnoreCase("openb")) return "--trace-format " + format + " is not known; the one trace format is openb";
        if (!Files.isRegularFile(nodes)) return "--nodes " + nodes + ": no such file (the replay's --nodes is a node list CSV such as openb_node_list_gpu_node.csv)";
        for (Path p : pods)
            if (!Files.isRegularFile(p)) return "--pods " + p + ": no such file (the replay's --pods is a task list CSV such as openb_pod_list_default.csv)";
        if (threads < 1 || threads > 256) return "--threads must be 1-256, got " + threads;
        try {
            ReplayRun.parseSeeds(seeds);
        } catch (NumberFormatException e) {
            return "--seeds " + seeds + ": write seeds as a range (42-51) or a list (42,43,50)";
        } catch (IllegalArgumentException e) {
            return "--seeds " + seeds + ": " + e.getMessage() + "; write a range (42-51) or a list (42,43,50)";
        }
        try {
            Policies.parse(policies);
        } catch (IllegalArgumentException e) {
            return "--policies: " + e.getMessage() + " or " + ALL_POLICIES;
        }
        return null;
    }

    private int fail(PrintWriter err, String message, int code) {
        err.println("mpshare simulate: " + message);
        err.flush();
        return code;
    }
}
