package io.mpshare.cli;

import picocli.CommandLine;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.UnmatchedArgumentException;

import java.util.List;
import java.util.Optional;

/**
 * A command-line mistake as one line, like every other expected failure: {@code mpshare: unknown command 'inpsect';
 * did you mean inspect? ('mpshare --help' lists the commands)}. The suggestion is picocli's nearest name, kept only
 * when it is a typo away (a few letters swapped, missing or extra), so a word that is nothing like a command gets the
 * list of commands rather than a guess.
 */
final class UsageErrors {
    private UsageErrors() {}

    static String line(ParameterException ex) {
        CommandLine cmd = ex.getCommandLine();
        String name = cmd.getCommandSpec().qualifiedName();
        if (ex instanceof UnmatchedArgumentException u && !u.getUnmatched().isEmpty()) {
            String typed = u.getUnmatched().getFirst();
            Optional<String> near = closest(typed, u.getSuggestions());
            if (!u.isUnknownOption() && !cmd.getSubcommands().isEmpty() && !typed.startsWith("-"))
                return name + ": unknown command '" + typed + "'" + near.map(n -> "; did you mean " + n + "?").orElse("")
                        + " ('" + name + " --help' lists " + (near.isPresent() ? "them" : "them: " + String.join(", ", cmd.getSubcommands().keySet())) + ")";
            if (near.isPresent()) return name + ": " + ex.getMessage() + "; did you mean " + near.get() + "? ('" + name + " --help' lists the options)";
        }
        String m = ex.getMessage();
        return name + ": " + m + (m.contains("--help") ? "" : " ('" + name + " --help' lists the options)");
    }

    /** The first candidate within a typo of {@code typed}: at most 2 edits, or a third of its length for long names. */
    static Optional<String> closest(String typed, List<String> candidates) {
        int limit = Math.max(2, typed.length() / 3);
        return candidates.stream().filter(c -> distance(typed, c) <= limit).findFirst();
    }

    /** Edits from a to b: insert, delete, replace, or swap two neighbours (optimal string alignment). */
    static int distance(String a, String b) {
        int[][] d = new int[a.length() + 1][b.length() + 1];
        for (int i = 0; i <= a.length(); i++) d[i][0] = i;
        for (int j = 0; j <= b.length(); j++) d[0][j] = j;
        for (int i = 1; i <= a.length(); i++)
            for (int j = 1; j <= b.length(); j++) {
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                d[i][j] = Math.min(Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1), d[i - 1][j - 1] + cost);
                if (i > 1 && j > 1 && a.charAt(i - 1) == b.charAt(j - 2) && a.charAt(i - 2) == b.charAt(j - 1))
                    d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
            }
        return d[a.length()][b.length()];
    }
}
