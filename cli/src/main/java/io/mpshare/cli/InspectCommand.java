package io.mpshare.cli;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.mpshare.core.MemoryUnit;
import io.mpshare.inspect.ClusterReader;
import io.mpshare.inspect.GpuReport;
import io.mpshare.inspect.ReportRenderer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.PrintStream;
import java.util.concurrent.Callable;

/** {@code mpshare inspect} (also {@code kubectl mpshare inspect}): who uses which GPU, allocated vs used. */
@Command(name = "inspect", mixinStandardHelpOptions = true,
        description = {"Per node and GPU: allocated/total GPU memory, what is used, and (with -d) the pods on each GPU.",
                "Uses your kubeconfig (KUBECONFIG or ~/.kube/config) like kubectl."})
public final class InspectCommand implements Callable<Integer> {
    @Parameters(index = "0", arity = "0..1", paramLabel = "NODE", description = "report on this node only") String node;
    @Option(names = {"-d", "--details"}, description = "list the pods on each GPU") boolean details;
    @Option(names = {"-o", "--output"}, defaultValue = "table", description = "table or json (default ${DEFAULT-VALUE})") String output;
    @Option(names = "--gpu-mem-unit", defaultValue = "GiB", description = "unit of aliyun.com/gpu-mem: GiB or MiB (default ${DEFAULT-VALUE})") String unit;

    @Override public Integer call() {
        if (!output.equals("table") && !output.equals("json"))
            throw new IllegalArgumentException("-o " + output + ": use table or json");
        MemoryUnit u = MemoryUnit.parse(unit);
        try (KubernetesClient client = new KubernetesClientBuilder().build()) {
            GpuReport report;
            try {
                report = new ClusterReader(client, u).read(node);
            } catch (KubernetesClientException e) {
                System.err.println("mpshare inspect: cannot read nodes and pods from " + client.getMasterUrl() + ": "
                        + (e.getCause() != null ? e.getCause() : e.getMessage()) + " (check your kubeconfig and that you may list nodes and pods)");
                return 1;
            } catch (IllegalArgumentException e) {
                System.err.println("mpshare inspect: " + e.getMessage());
                return 1;
            }
            ReportRenderer renderer = new ReportRenderer(u);
            PrintStream out = System.out;
            out.print(output.equals("json") ? renderer.json(report) : renderer.table(report, details));
            return report.nodes().isEmpty() && node != null ? 1 : 0;
        }
    }
}
