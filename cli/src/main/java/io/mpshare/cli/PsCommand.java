package io.mpshare.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.mpshare.host.PsFormat;
import io.mpshare.host.api.HostClient;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.nio.file.Path;
import java.util.concurrent.Callable;

/** {@code mpshare ps}: the host's GPUs, jobs and live use per process. */
@Command(name = "ps", mixinStandardHelpOptions = true, description = "Shows this host's GPUs, jobs and their live GPU use (needs 'mpshare host').")
public final class PsCommand implements Callable<Integer> {
    @Option(names = "--socket", defaultValue = HostClient.DEFAULT_SOCKET, description = "the host's API socket (default ${DEFAULT-VALUE})") Path socket;
    @Spec CommandSpec spec;
    @Option(names = "--json", description = "print the answer as JSON") boolean json;

    @Override public Integer call() throws Exception {
        JsonNode ps;
        try {
            ps = new HostClient(socket).ps();
        } catch (HostClient.Unreachable e) {
            throw CliFailure.failed(e.getMessage());
        }
        var out = spec.commandLine().getOut();
        out.print(json ? ps.toPrettyString() + "\n" : PsFormat.text(ps));
        out.flush();
        return ExitCodes.OK;
    }
}
