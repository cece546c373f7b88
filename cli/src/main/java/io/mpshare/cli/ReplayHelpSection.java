package io.mpshare.cli;

import picocli.CommandLine;
import picocli.CommandLine.Help;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Model.UsageMessageSpec;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;

/**
 * The "Trace replay (Alibaba openb)" section of {@code mpshare simulate --help}: the options of
 * {@link SimulateOpenbCommand}, rendered from that command's own model (names, labels, defaults), after the
 * built-in simulation's options. The two are separate commands because {@code --nodes} and {@code --pods}
 * take counts in one and files in the other; {@link Main} routes on {@code --trace-format}.
 */
final class ReplayHelpSection {
    static final String KEY = "openbReplay";
    static final String HEADING = "Trace replay (Alibaba openb)";

    private ReplayHelpSection() {}

    /** Adds the section to {@code simulate}'s usage message, right after its option list. */
    static void install(CommandSpec simulate) {
        UsageMessageSpec usage = simulate.usageMessage();
        var map = new LinkedHashMap<>(usage.sectionMap());
        map.put(KEY, ReplayHelpSection::render);
        usage.sectionMap(map);
        List<String> keys = new ArrayList<>(usage.sectionKeys());
        keys.add(keys.indexOf(UsageMessageSpec.SECTION_KEY_OPTION_LIST) + 1, KEY);
        usage.sectionKeys(keys);
    }

    static String render(Help simulateHelp) {
        CommandSpec openb = new CommandLine(new SimulateOpenbCommand()).getCommandSpec();
        Help help = new Help(openb, simulateHelp.colorScheme());
        List<OptionSpec> options = openb.options().stream().filter(o -> !o.usageHelp() && !o.versionHelp() && !o.hidden()).toList();
        return String.format("%n%s:%n  mpshare simulate --trace-format openb --nodes NODES.csv --pods PODS.csv [OPTIONS]%n", HEADING)
                + "Replays Alibaba's production GPU traces (cluster-trace-gpu-v2023, ATC'23 paper\n"
                + "\"Beware of Fragmentation\") with the paper's method, under its baseline policies\n"
                + "and mpshare's default. --nodes and --pods then take files; get them with\n"
                + "git clone https://github.com/alibaba/clusterdata (cluster-trace-gpu-v2023/csv).\n"
                + "Method and results: docs/trace-replay.md.\n"
                + help.optionListExcludingGroups(options);
    }
}
