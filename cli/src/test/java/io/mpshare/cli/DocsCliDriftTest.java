package io.mpshare.cli;

import io.mpshare.cli.DocMentions.Mention;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Docs and CLI cannot drift: every {@code mpshare SUB} and {@code --flag} that README.md, docs/*.md, docs/lab/*.md and
 * the modules' README.md files show in code
 * exists in that subcommand's {@code --help} (hidden options do not count). A flag shown without a subcommand must be
 * an option of the page's own subcommand (named in its title) or, on other pages, of some subcommand; the few flags
 * of other tools that pages show on their own are listed below with their tool.
 */
class DocsCliDriftTest {
    /** Flags of other tools that docs show in a span of their own. */
    private static final Map<String, String> OTHER_TOOLS_FLAGS = Map.of(
            "--set", "helm",
            "--enable-native-access", "java",
            "--deviceplugin", "e2e/gpu/build-runtime.sh",
            "--query-compute-apps", "nvidia-smi",
            "--root-dir", "kubelet");

    private static final Pattern TITLE_SUB = Pattern.compile("`(?:kubectl |bin/)?mpshare ([a-z][a-z-]*)`");

    static Path root() {
        for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent())
            if (Files.isRegularFile(p.resolve("README.md")) && Files.isDirectory(p.resolve("docs")) && Files.isDirectory(p.resolve("cli"))) return p;
        throw new IllegalStateException("run from inside the mpshare checkout: no README.md + docs/ above " + Path.of("").toAbsolutePath());
    }

    static List<Path> pages() throws IOException {
        Path root = root();
        List<Path> pages = new ArrayList<>(List.of(root.resolve("README.md")));
        for (String folder : List.of("docs", "docs/lab")) { // topic pages, and the lab notebook of the runs behind their figures
            if (!Files.isDirectory(root.resolve(folder))) continue;
            try (Stream<Path> docs = Files.list(root.resolve(folder))) {
                docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(pages::add);
            }
        }
        try (Stream<Path> modules = Files.list(root)) { // each module's README.md, and e2e/*/README.md
            modules.filter(Files::isDirectory).flatMap(d -> Stream.of(d.resolve("README.md")))
                    .filter(Files::isRegularFile).sorted().forEach(pages::add);
        }
        try (Stream<Path> e2e = Files.isDirectory(root.resolve("e2e")) ? Files.list(root.resolve("e2e")) : Stream.empty()) {
            e2e.map(d -> d.resolve("README.md")).filter(Files::isRegularFile).sorted().forEach(pages::add);
        }
        return pages;
    }

    /** Each subcommand's visible long options, from the same model that prints its --help. */
    static Map<String, Set<String>> options() {
        Map<String, Set<String>> all = new TreeMap<>();
        new CommandLine(new MpshareCommand()).getSubcommands().forEach((name, cl) -> all.put(name, visible(cl)));
        all.get("simulate").addAll(visible(new CommandLine(new SimulateOpenbCommand()))); // mpshare simulate --trace-format openb --help
        return all;
    }

    private static Set<String> visible(CommandLine cl) {
        Set<String> names = new HashSet<>();
        for (OptionSpec o : cl.getCommandSpec().options()) {
            if (o.hidden()) continue;
            for (String n : o.names()) {
                names.add(n);
                if (o.negatable() && n.startsWith("--")) names.add(n.startsWith("--no-") ? "--" + n.substring(5) : "--no-" + n.substring(2));
            }
        }
        return names;
    }

    /** Every drift of {@code markdown} against {@code options}, one line each; empty when docs and CLI agree. */
    static List<String> drift(String page, String markdown, Map<String, Set<String>> options) {
        List<String> problems = new ArrayList<>();
        DocMentions m = DocMentions.of(page, markdown);
        for (Mention s : m.subcommands)
            if (!options.containsKey(s.subcommand())) problems.add(s.where() + ": no subcommand 'mpshare " + s.subcommand() + "'");
        Set<String> home = new HashSet<>();
        String title = markdown.lines().filter(l -> l.startsWith("# ")).findFirst().orElse("");
        for (Matcher t = TITLE_SUB.matcher(title); t.find(); ) if (options.containsKey(t.group(1))) home.add(t.group(1));
        for (Mention f : m.flags) {
            if (f.subcommand() != null) {
                Set<String> own = options.get(f.subcommand());
                if (own != null && !own.contains(f.flag()))
                    problems.add(f.where() + ": 'mpshare " + f.subcommand() + "' has no " + f.flag() + " in its --help");
            } else if (!OTHER_TOOLS_FLAGS.containsKey(f.flag())) {
                boolean known = home.isEmpty() ? options.values().stream().anyMatch(o -> o.contains(f.flag()))
                        : home.stream().anyMatch(h -> options.get(h).contains(f.flag()));
                if (!known) problems.add(f.where() + ": " + f.flag() + " is in no --help of "
                        + (home.isEmpty() ? "any subcommand" : "mpshare " + String.join(", mpshare ", home)));
            }
        }
        return problems;
    }

    @Test void docs_everySubcommandAndFlagShownExistsInHelp() throws IOException {
        Map<String, Set<String>> options = options();
        Map<String, List<String>> byPage = new LinkedHashMap<>();
        int mentions = 0;
        for (Path page : pages()) {
            String text = Files.readString(page);
            mentions += DocMentions.of(page.getFileName().toString(), text).flags.size();
            List<String> d = drift(root().relativize(page).toString(), text, options);
            if (!d.isEmpty()) byPage.put(page.toString(), d);
        }
        assertThat(mentions).as("the scanner finds the docs' flags").isGreaterThan(100);
        assertThat(byPage.values().stream().flatMap(List::stream).toList()).as("docs name what --help does not have").isEmpty();
    }

    @Test void drift_unknownSubcommandInCode_reported() {
        assertThat(drift("p.md", "Run `mpshare frobnicate --x`.", options())).containsExactly("p.md:1 `mpshare frobnicate --x`: no subcommand 'mpshare frobnicate'");
    }

    @Test void drift_flagOfAnotherSubcommand_reported() {
        assertThat(drift("p.md", "```\nmpshare inspect --fake-gpus 16384\n```\n", options()))
                .containsExactly("p.md:2 `mpshare inspect --fake-gpus 16384`: 'mpshare inspect' has no --fake-gpus in its --help");
    }

    @Test void drift_continuedLine_flagStillBelongsToTheSubcommand() {
        assertThat(drift("p.md", "```\nbin/mpshare device-plugin --node-name n1 \\\n  --memory-unit GiB\n```\n", options()))
                .singleElement().asString().contains("'mpshare device-plugin' has no --memory-unit");
    }

    @Test void drift_hiddenOption_doesNotCount() {
        assertThat(drift("p.md", "`mpshare upgrade-node n1 --poll PT1S`", options())).singleElement().asString().contains("has no --poll");
    }

    @Test void drift_pageTitleNamesTheSubcommand_bareFlagMustBeItsOwn() {
        assertThat(drift("p.md", "# The thing (`mpshare inspect`)\n\nSet `--policy`.\n", options()))
                .containsExactly("p.md:3 `--policy`: --policy is in no --help of mpshare inspect");
    }

    @Test void drift_userCommandAndOtherTools_notCounted() {
        assertThat(drift("p.md", """
                ```
                mpshare run --gpu-mem 7 -- torchrun --nproc-per-node 2 train.py
                helm install mpshare charts/mpshare --set image.tag=1 --wait
                KUBECONFIG=/tmp/kc mpshare inspect --kubeconfig /tmp/kc -d
                ```
                and `kubectl mpshare inspect -o json`, prose mpshare binpack, `mpshare-report.html`.
                """, options())).isEmpty();
    }

    @Test void drift_messageTextInCode_notACommand() {
        assertThat(drift("p.md", "`it was not placed by the mpshare scheduler extender` and `>>> sharing with mpshare binpack needs 3 GPUs`", options())).isEmpty();
    }

    @Test void drift_bareFlagAfterASubcommandOnTheSameLine_isThatSubcommands() {
        assertThat(drift("p.md", "two (`mpshare mps-control --colour blue` and `--colour green`)", options())).isEmpty();
        assertThat(drift("p.md", "two (`mpshare inspect -d` and `--colour green`)", options()))
                .containsExactly("p.md:1 `--colour green`: 'mpshare inspect' has no --colour in its --help");
    }

    @Test void drift_errorMessage_flagsMustExistQuotedInputDoesNot() {
        assertThat(drift("p.md", "`mpshare inspect: Unknown option: '--kubecfg'` and `mpshare device-plugin: pass --memory-unit GiB`", options()))
                .containsExactly("p.md:1 `mpshare device-plugin: pass --memory-unit GiB`: --memory-unit is in no --help of any subcommand");
    }

    @Test void drift_simulateReportRows_notCommands() {
        assertThat(drift("p.md", "```\nmpshare fragmentation (default)   129  76%\nmpshare binpack                   122  77%\n```\n", options())).isEmpty();
        assertThat(drift("p.md", "```\nmpshare binpack --x\n```\n", options())).containsExactly("p.md:2 `mpshare binpack --x`: no subcommand 'mpshare binpack'");
    }

    @Test void drift_negatedForm_counts() {
        assertThat(drift("p.md", "`mpshare device-plugin --no-police`", options())).isEmpty();
    }
}
