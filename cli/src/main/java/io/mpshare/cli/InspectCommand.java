package io.mpshare.cli;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.mpshare.cli.kube.KubeConnector;
import io.mpshare.cli.kube.KubeOptions;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.mpshare.core.MemoryUnit;
import io.mpshare.inspect.ClusterReader;
import io.mpshare.inspect.GpuReport;
import io.mpshare.inspect.ReportRenderer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.PrintWriter;
import java.util.concurrent.Callable;

/** {@code mpshare inspect} (also {@code kubectl mpshare inspect}): who uses which GPU, allocated vs used. */
@Command(name = "inspect", mixinStandardHelpOptions = true,
        description = {"Per node and GPU: allocated/total GPU memory, what is used, and (with -d) the pods on each GPU.",
                "Uses your kubeconfig like kubectl: --kubeconfig, else KUBECONFIG, else ~/.kube/config."})
public final class InspectCommand implements Callable<Integer> {
    @Parameters(index = "0", arity = "0..1", paramLabel = "NODE", description = "report on this node only") String node;
    @Option(names = {"-d", "--details"}, description = "list the pods on each GPU") boolean details;
    @Option(names = {"-o", "--output"}, defaultValue = "table", description = "table or json (default ${DEFAULT-VALUE})") String output;
    @Mixin KubeOptions kube;
    @Spec CommandSpec spec;
    @Option(names = "--gpu-mem-unit", defaultValue = "GiB", description = "unit of aliyun.com/gpu-mem: GiB or MiB (default ${DEFAULT-VALUE})") String unit;

    @Override public Integer call() {
        if (!output.equals("table") && !output.equals("json"))
            throw CliFailure.usage("-o " + output + ": use table or json");
        MemoryUnit u = MemoryUnit.parse(unit);
        try (KubernetesClient client = KubeConnector.system().connect(kube)) {
            GpuReport report;
            try {
                report = new ClusterReader(client, u).read(node);
            } catch (KubernetesClientException e) {
                throw CliFailure.failed("cannot read nodes and pods from " + client.getMasterUrl() + ": "
                        + (e.getCause() != null ? e.getCause() : e.getMessage()) + " (check that your user may list nodes and pods)");
            } catch (IllegalArgumentException e) {
                throw CliFailure.failed(e.getMessage());
            }
            ReportRenderer renderer = new ReportRenderer(u);
            PrintWriter out = spec.commandLine().getOut();
            out.print(output.equals("json") ? renderer.json(report) : renderer.table(report, details));
            out.flush();
            return report.nodes().isEmpty() && node != null ? ExitCodes.FAILED : ExitCodes.OK;
        }
    }
}
