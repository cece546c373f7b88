package io.mpshare.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The main Java sources of every module, read as text and split into code and comments, for the rules a compiled
 * class cannot show: how a type is named in the code and what the comments say.
 */
final class MainSources {
    /** A package-qualified type written in code: lower-case package segments, then a capitalised name. */
    private static final Pattern INLINE_NAME = Pattern.compile(
            "(?<![\\w.@])(?:java|javax|jdk|io|com|org|sun|net)(?:\\.[a-z_][a-z0-9_]*)+\\.[A-Z]\\w*");
    private static final Pattern IMPORT_OR_PACKAGE = Pattern.compile("(?m)^\\s*(?:package|import)\\s[^;]*;");
    private static final Pattern ISSUE_NUMBER = Pattern.compile("(?i)\\bissues?\\s*#?\\s*\\d+");

    private MainSources() {}

    /** One finding: the file (relative to the root read), its line, and the text found. */
    record Finding(String file, int line, String text) {
        @Override public String toString() { return file + ":" + line + ": " + text; }
    }

    /** Every {@code src/main/java} tree under {@code root}, build output left out. */
    static List<Path> files(Path root) {
        try (Stream<Path> all = Files.walk(root)) {
            return all.filter(p -> p.toString().endsWith(".java"))
                    .filter(p -> root.relativize(p).toString().replace('\\', '/').matches("(?:.*/)?src/main/java/.*"))
                    .filter(p -> !root.relativize(p).toString().replace('\\', '/').matches("(?:.*/)?(?:target|\\.git)/.*"))
                    .sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Package-qualified type names written in the code of {@code source} (comments, strings, imports left out). */
    static List<Finding> inlineNames(String file, String source) {
        String code = IMPORT_OR_PACKAGE.matcher(split(source, true)).replaceAll(m -> " ".repeat(m.group().length()));
        return find(file, source, INLINE_NAME.matcher(code));
    }

    /** Issue numbers ({@code issue 12}, {@code issue #12}) in the comments of {@code source}. */
    static List<Finding> issueNumbers(String file, String source) {
        return find(file, source, ISSUE_NUMBER.matcher(split(source, false)));
    }

    private static List<Finding> find(String file, String source, Matcher m) {
        List<Finding> out = new ArrayList<>();
        while (m.find()) out.add(new Finding(file, line(source, m.start()), m.group()));
        return out;
    }

    private static int line(String s, int offset) {
        int n = 1;
        for (int i = 0; i < offset; i++) if (s.charAt(i) == '\n') n++;
        return n;
    }

    /**
     * {@code source} with either its comments, strings and character literals blanked ({@code code}) or everything but
     * its comments blanked; line breaks and offsets kept.
     */
    static String split(String source, boolean code) {
        char[] out = source.toCharArray();
        boolean[] comment = new boolean[out.length];
        boolean[] literal = new boolean[out.length];
        int n = out.length;
        int i = 0;
        while (i < n) {
            int end;
            if (source.startsWith("//", i)) {
                end = source.indexOf('\n', i);
                end = end < 0 ? n : end;
                mark(comment, i, end);
            } else if (source.startsWith("/*", i)) {
                end = source.indexOf("*/", i + 2);
                end = end < 0 ? n : end + 2;
                mark(comment, i, end);
            } else if (source.startsWith("\"\"\"", i)) {
                end = i + 3;
                while (end < n && !source.startsWith("\"\"\"", end)) end += source.charAt(end) == '\\' ? 2 : 1;
                end = Math.min(n, end + 3);
                mark(literal, i, end);
            } else if (source.charAt(i) == '"' || source.charAt(i) == '\'') {
                char quote = source.charAt(i);
                end = i + 1;
                while (end < n && source.charAt(end) != quote) end += source.charAt(end) == '\\' ? 2 : 1;
                end = Math.min(n, end + 1);
                mark(literal, i, end);
            } else {
                end = i + 1;
            }
            i = end;
        }
        for (int k = 0; k < n; k++) {
            boolean keep = code ? !comment[k] && !literal[k] : comment[k];
            if (!keep && out[k] != '\n') out[k] = ' ';
        }
        return new String(out);
    }

    private static void mark(boolean[] what, int from, int to) {
        for (int k = from; k < to; k++) what[k] = true;
    }

    static String read(Path f) {
        try {
            return Files.readString(f);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
