package io.mpshare.mps.preflight;

import java.util.Arrays;
import java.util.List;
import java.util.Set;

/**
 * A process's command line cut to what a person recognises: {@code mpshare device-plugin}, {@code java -jar app.jar},
 * {@code python3 -m http.server 8080}.
 */
final class CommandLines {
    static final int MAX = 60;
    private static final String MAIN_CLASS = "io.mpshare.cli.Main";
    /** java options whose value is the next argument. */
    private static final Set<String> JAVA_VALUED = Set.of("-cp", "-classpath", "--class-path", "-p", "--module-path", "--add-modules",
            "--add-opens", "--add-exports", "--add-reads", "--enable-native-access");

    private CommandLines() {}

    /**
     * mpshare's own launcher ({@code java ... -jar .../mpshare.jar SUB}) is {@code mpshare SUB}; another JVM is
     * {@code java} with its jar or main class; anything else is argv[0]'s name and its arguments, cut.
     */
    static String summary(String... argv) {
        List<String> args = Arrays.stream(argv).filter(a -> !a.isEmpty()).toList();
        if (args.isEmpty()) return "";
        for (int i = 0; i + 1 < args.size(); i++) {
            String a = args.get(i);
            if ((a.endsWith("mpshare.jar") || a.equals(MAIN_CLASS)) && !args.get(i + 1).startsWith("-")) return "mpshare " + args.get(i + 1);
        }
        String program = baseName(args.getFirst());
        if (program.equals("java")) return cut("java " + javaMain(args.subList(1, args.size())));
        return cut(program + (args.size() > 1 ? " " + String.join(" ", args.subList(1, args.size())) : ""));
    }

    /** {@code -jar NAME.jar} or the main class, the first argument that is neither an option nor an option's value. */
    private static String javaMain(List<String> args) {
        for (int i = 0; i < args.size(); i++) {
            String a = args.get(i);
            if (a.equals("-jar") && i + 1 < args.size()) return "-jar " + baseName(args.get(i + 1));
            if (JAVA_VALUED.contains(a)) i++;
            else if (!a.startsWith("-")) return a;
        }
        return "";
    }

    private static String cut(String s) {
        String t = s.strip();
        return t.length() <= MAX ? t : t.substring(0, MAX - 3) + "...";
    }

    private static String baseName(String program) {
        int slash = program.lastIndexOf('/');
        return slash >= 0 && slash < program.length() - 1 ? program.substring(slash + 1) : program;
    }
}
