package io.mpshare.cli;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.mpshare.cli.kube.KubeConnector;
import io.mpshare.cli.kube.KubeOptions;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.mpshare.upgrade.kube.FleetUpgrade;
import io.mpshare.upgrade.kube.KubeNode;
import io.mpshare.upgrade.kube.NodeUpgrader;
import io.mpshare.upgrade.kube.NodeUpgrader.Outcome;
import io.mpshare.upgrade.kube.Sleeper;
import io.mpshare.upgrade.plan.UpgradeOptions;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Callable;

/** {@code mpshare upgrade-node NODE|--all}: upgrade the MPS daemon with no pod killed (docs/upgrade.md). */
@Command(name = "upgrade-node", mixinStandardHelpOptions = true,
        description = {"Upgrades the MPS control daemon on a node without killing a client: starts the idle colour (blue/green) "
                + "with its DaemonSet's current template, switches new clients to it, waits for the old colour's clients to exit.",
                "Progress is kept in the Node annotation mpshare.io/upgrade-state; run again to resume.",
                "Exit codes: 0 done, 3 blocked (needs a person), 4 --max-wait passed (progress kept), 1 error, 2 usage (docs/cli.md)."})
public final class UpgradeNodeCommand implements Callable<Integer> {
    @Parameters(index = "0", arity = "0..1", paramLabel = "NODE", description = "the node to upgrade") String node;
    @Option(names = "--all", description = "every node labelled ack.node.gpu.schedule=mps") boolean all;
    @Option(names = "--concurrency", defaultValue = "1", description = "with --all: nodes upgraded at once (default ${DEFAULT-VALUE})") int concurrency;
    @Option(names = "--max-wait", defaultValue = "PT30M", description = "how long to wait for the old colour's clients (ISO-8601, default ${DEFAULT-VALUE})") Duration maxWait;
    @Option(names = "--drain", description = "after --max-wait, evict what is left on the old colour (cordon, Eviction API, uncordon); "
            + "with no idle colour, the seed's procedure in place") boolean drain;
    @Option(names = "--dry-run", description = "print the plan; change nothing") boolean dryRun;
    @Option(names = {"-n", "--namespace"}, description = "namespace of the MPS DaemonSets (default: any)") String namespace;
    @Mixin KubeOptions kube;
    @Option(names = "--poll", defaultValue = "PT5S", hidden = true) Duration poll;

    @Override public Integer call() throws InterruptedException {
        if ((node == null) == !all) {
            throw CliFailure.usage("name one NODE, or --all");
        }
        var settings = new NodeUpgrader.Settings(maxWait, drain, UpgradeOptions.DEFAULT_SETTLE, poll);
        try (KubernetesClient client = KubeConnector.system().connect(kube); KubeNode kube = new KubeNode(client, namespace)) {
            NodeUpgrader upgrader = new NodeUpgrader(kube, InstantSource.system(), Sleeper.SYSTEM);
            try {
                List<String> nodes = all ? kube.mpsNodes() : List.of(node);
                if (dryRun) {
                    for (String n : nodes) upgrader.dryRun(n, settings).forEach(System.out::println);
                    return 0;
                }
                if (!all) return upgrader.run(node, settings, System.out::println).exitCode;
                Map<String, Outcome> outcomes = new FleetUpgrade(upgrader).run(nodes, concurrency, settings, System.out::println);
                outcomes.forEach((n, o) -> System.out.println(n + ": " + (o == null ? "FAILED" : o)));
                if (outcomes.containsValue(null)) return 1;
                return outcomes.values().stream().filter(Objects::nonNull).mapToInt(o -> o.exitCode).max().orElse(0);
            } catch (KubernetesClientException e) {
                throw CliFailure.failed("the API server at " + client.getMasterUrl() + " refused or failed: " + e.getMessage());
            } catch (IllegalArgumentException e) {
                throw CliFailure.failed(e.getMessage());
            }
        }
    }
}
