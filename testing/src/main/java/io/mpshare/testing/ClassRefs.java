package io.mpshare.testing;

import javax.tools.ToolProvider;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.classfile.ClassFile;
import java.lang.classfile.ClassModel;
import java.lang.classfile.constantpool.ClassEntry;
import java.lang.classfile.constantpool.MemberRefEntry;
import java.lang.classfile.constantpool.NameAndTypeEntry;
import java.lang.classfile.constantpool.Utf8Entry;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * What compiled classes refer to, read from their constant pools with the JDK's {@code java.lang.classfile}: every
 * type (class entries, and the types in field, method and signature descriptors) and every field or method called, with
 * its owner. Boundary tests check these instead of import lines, so a fully qualified name written inline or a call
 * such as {@code Clock.systemUTC()} cannot slip past. {@link #compile} builds a deliberate violation for such a test
 * to show that its check fails on it.
 */
public final class ClassRefs {
    private static final Pattern DESCRIPTOR_TYPE = Pattern.compile("L([\\w/$]+)[;<]");

    private ClassRefs() {}

    /**
     * One reference.
     *
     * @param from   the class file, relative to the folder read ({@code io/mpshare/x/Y.class})
     * @param target a type ({@code java.time.Clock}) or a member with its owner ({@code java.time.Clock.systemUTC})
     */
    public record Ref(String from, String target) {
        @Override public String toString() { return from + " refers to " + target; }
    }

    /**
     * Every reference of every main class of the module that holds {@code marker}: its folder of classes in a reactor
     * build, its jar when the module comes from the local repository.
     */
    public static List<Ref> ofModule(Class<?> marker) {
        return withModule(marker, ClassRefs::in);
    }

    /** Every main class of the module that holds {@code marker}, by binary name, as class-file bytes. */
    public static Map<String, byte[]> classesOf(Class<?> marker) {
        return withModule(marker, root -> {
            Map<String, byte[]> out = new TreeMap<>();
            try (Stream<Path> files = Files.walk(root)) {
                for (Path f : files.filter(p -> p.toString().endsWith(".class")).toList()) {
                    String rel = root.relativize(f).toString().replace('\\', '/');
                    if (rel.startsWith("META-INF/") || rel.endsWith("module-info.class") || rel.endsWith("package-info.class")) continue;
                    out.put(rel.substring(0, rel.length() - ".class".length()).replace('/', '.'), Files.readAllBytes(f));
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            return out;
        });
    }

    /** What one class file refers to: types ({@code java.time.Clock}) and members with their owner ({@code java.time.Clock.systemUTC}). */
    public static Set<String> targets(byte[] classFile) {
        return targets(ClassFile.of().parse(classFile));
    }

    private static <T> T withModule(Class<?> marker, Function<Path, T> read) {
        Path where;
        try {
            where = Path.of(marker.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException("no class path entry for " + marker.getName(), e);
        }
        if (Files.isDirectory(where)) return read.apply(where);
        try (FileSystem jar = FileSystems.newFileSystem(where)) {
            return read.apply(jar.getPath("/"));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the classes of " + marker.getName() + " at " + where, e);
        }
    }

    /** Every reference of every class file under {@code classes}, in file order; each distinct one once per file. */
    public static List<Ref> in(Path classes) {
        if (!Files.isDirectory(classes)) throw new IllegalArgumentException(classes.toAbsolutePath() + " is not a folder of compiled classes (run through Maven)");
        List<Ref> out = new ArrayList<>();
        try (Stream<Path> files = Files.walk(classes)) {
            for (Path f : files.filter(p -> p.toString().endsWith(".class")).sorted().toList()) {
                String from = classes.relativize(f).toString().replace('\\', '/');
                if (from.startsWith("META-INF/") || from.endsWith("module-info.class")) continue;
                for (String target : targets(ClassFile.of().parse(f))) out.add(new Ref(from, target));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out;
    }

    private static Set<String> targets(ClassModel model) {
        Set<String> out = new LinkedHashSet<>();
        for (var entry : model.constantPool()) {
            switch (entry) {
                case ClassEntry c -> type(c.asInternalName()).ifPresent(out::add);
                case MemberRefEntry m -> type(m.owner().asInternalName()).ifPresent(owner -> out.add(owner + "." + m.name().stringValue()));
                case NameAndTypeEntry n -> descriptor(n.type().stringValue(), out);
                case Utf8Entry u when u.stringValue().startsWith("(") || u.stringValue().startsWith("L") || u.stringValue().startsWith("<") ->
                        descriptor(u.stringValue(), out); // descriptors and generic signatures (a generic method's starts with '<')
                default -> { }
            }
        }
        model.fields().forEach(f -> descriptor(f.fieldType().stringValue(), out));
        model.methods().forEach(m -> descriptor(m.methodType().stringValue(), out));
        return out;
    }

    /** A class entry's type, an array's component type; empty for a primitive array (its component is one letter). */
    private static Optional<String> type(String internalName) {
        String n = internalName;
        while (n.startsWith("[")) n = n.substring(1);
        if (n.startsWith("L") && n.endsWith(";")) n = n.substring(1, n.length() - 1);
        return n.length() > 1 ? Optional.of(dotted(n)) : Optional.empty();
    }

    private static void descriptor(String text, Set<String> out) {
        Matcher m = DESCRIPTOR_TYPE.matcher(text);
        while (m.find()) out.add(dotted(m.group(1)));
    }

    private static String dotted(String internalName) { return internalName.replace('/', '.'); }

    /**
     * Compiles {@code sources} (path relative to a source root, e.g. {@code io/mpshare/x/Bad.java} → its text) into
     * {@code outDir} against this test's class path, and returns {@code outDir}. A source that does not compile fails
     * with javac's messages.
     */
    public static Path compile(Path outDir, Map<String, String> sources) throws IOException {
        Path src = Files.createDirectories(outDir.resolve("../" + outDir.getFileName() + "-src").normalize());
        List<String> args = new ArrayList<>(List.of("--release", "25", "-proc:none", "-d", outDir.toString(),
                "-cp", System.getProperty("java.class.path")));
        for (var e : sources.entrySet()) {
            Path f = src.resolve(e.getKey());
            Files.createDirectories(f.getParent());
            Files.writeString(f, e.getValue());
            args.add(f.toString());
        }
        var errors = new ByteArrayOutputStream();
        int rc = ToolProvider.getSystemJavaCompiler().run(null, null, errors, args.toArray(String[]::new));
        if (rc != 0) throw new IllegalArgumentException("the deliberate violation does not compile:\n" + errors.toString(StandardCharsets.UTF_8));
        return outDir;
    }
}
