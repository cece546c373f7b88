package io.mpshare.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What a Markdown page says about the command line, read from its code only (inline {@code `spans`} and fenced
 * blocks, with {@code \}-continued lines joined): each {@code mpshare SUB} it names, and each {@code --flag} with the
 * subcommand it is given to (the last {@code mpshare SUB} before it in the same command), or none.
 * A segment whose command is another tool (helm, mvn, java, ...) contributes only what follows an {@code mpshare SUB}
 * inside it; {@code --} ends an mpshare command (what follows is the user's command).
 */
final class DocMentions {
    /** A flag or subcommand mention: where, and the subcommand it belongs to (null: not said). */
    record Mention(String page, int line, String subcommand, String flag, String text) {
        String where() { return page + ":" + line + " `" + text.strip() + "`"; }
    }

    static final Set<String> OTHER_TOOLS = Set.of("helm", "mvn", "java", "docker", "kubectl", "nvidia-smi", "unshare", "torchrun",
            "python", "python3", "curl", "git", "install", "ln", "sudo", "systemctl", "ctr", "crictl", "bash", "sh", "apt-get",
            "sed", "export", "bin/dev-cluster", "bin/test", "setpriv", "runuser", "nsenter", "env", "timeout", "flock");

    private static final Pattern SPAN = Pattern.compile("`([^`\n]+)`");
    private static final Pattern SUB = Pattern.compile("(?<![\\w.-])mpshare\\s+([a-z][a-z-]*)(?=$|[\\s`,);|])");
    private static final Pattern FLAG = Pattern.compile("(?<![\\w-])(--[a-z][a-z0-9]*(?:-[a-z0-9]+)*)");
    /** What may stand before {@code mpshare} where it starts a command: a prompt, variables, sudo/kubectl, a folder, a shell operator. */
    private static final Pattern COMMAND_POSITION = Pattern.compile(
            "(^(\\$\\s+)?(\\S+=\\S*\\s+)*((sudo|exec|kubectl)\\s+)?(\\S*/)?$)|((&&|\\||;|\\(|\\$\\()\\s*(\\S*/)?$)");
    /** {@code mpshare SUB: what happened ...}: a message as {@code Main} prints it. */
    private static final Pattern MESSAGE = Pattern.compile("^mpshare ([a-z][a-z-]*): ");
    private static final Pattern END_OF_COMMAND = Pattern.compile("\\s--(\\s|$)|\\|\\s|&&|;|\\s#");

    final List<Mention> subcommands = new ArrayList<>();
    final List<Mention> flags = new ArrayList<>();

    static DocMentions of(String page, String markdown) {
        DocMentions m = new DocMentions();
        String[] lines = markdown.split("\n", -1);
        boolean fenced = false;
        StringBuilder joined = null;
        int joinedStart = 0;
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i];
            if (line.strip().startsWith("```")) {
                fenced = !fenced;
                continue;
            }
            if (fenced) {
                if (joined == null) { joined = new StringBuilder(); joinedStart = i + 1; }
                if (line.endsWith("\\")) { joined.append(line, 0, line.length() - 1).append(' '); continue; }
                joined.append(line);
                m.segment(page, joinedStart, joined.toString(), null);
                joined = null;
            } else {
                Matcher span = SPAN.matcher(line);
                String lineSub = null; // a bare flag after `mpshare SUB ...` on the same line is SUB's: "`mpshare x --a 1` and `--a 2`"
                while (span.find()) lineSub = m.segment(page, i + 1, span.group(1), lineSub);
            }
        }
        return m;
    }

    /** Records the segment's mentions; returns the last subcommand it names, else {@code lineSub}. */
    private String segment(String page, int line, String code, String lineSub) {
        String text = code.strip().replaceFirst("^\\$\\s+", "");
        Matcher message = MESSAGE.matcher(text);
        if (message.find()) { // an error message shown in the docs: its subcommand must exist, its flags somewhere
            subcommands.add(new Mention(page, line, message.group(1), null, text));
            Matcher flag = FLAG.matcher(text.replaceAll("'[^']*'", "''")); // quoted: the user's input, another tool
            while (flag.find()) flags.add(new Mention(page, line, null, flag.group(1), text));
            return lineSub;
        }
        String first = text.isEmpty() ? "" : text.split("\\s+")[0];
        boolean other = OTHER_TOOLS.contains(first) || first.contains("=") || first.endsWith(".sh") || first.endsWith(".py");
        Matcher sub = SUB.matcher(text);
        List<int[]> ranges = new ArrayList<>(); // [start, end] of each mpshare command in the segment
        List<String> names = new ArrayList<>();
        while (sub.find()) {
            if (!COMMAND_POSITION.matcher(text.substring(0, sub.start())).find()) continue; // prose: "placed by the mpshare scheduler"
            if (text.startsWith("  ", sub.end()) || text.startsWith(" (", sub.end())) continue; // a report's row: "mpshare binpack    122  77%"
            subcommands.add(new Mention(page, line, sub.group(1), null, text));
            Matcher end = END_OF_COMMAND.matcher(text);
            int stop = end.find(sub.end()) ? end.start() : text.length();
            ranges.add(new int[]{sub.end(), stop});
            names.add(sub.group(1));
        }
        Matcher flag = FLAG.matcher(text);
        while (flag.find()) {
            String owner = null;
            boolean inside = false;
            for (int r = 0; r < ranges.size(); r++)
                if (flag.start() >= ranges.get(r)[0] && flag.start() < ranges.get(r)[1]) { owner = names.get(r); inside = true; }
            boolean afterUserCommand = !ranges.isEmpty() && !inside && flag.start() > ranges.getFirst()[0];
            if (ranges.isEmpty() && !other && text.startsWith("--")) owner = lineSub;
            if (inside || (!other && !afterUserCommand)) flags.add(new Mention(page, line, owner, flag.group(1), text));
        }
        return names.isEmpty() ? lineSub : names.getLast();
    }
}
