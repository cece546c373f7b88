package io.mpshare.cli.layering;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.classfile.ClassFile;
import java.lang.classfile.constantpool.ClassEntry;
import java.lang.classfile.constantpool.Utf8Entry;
import java.net.URISyntaxException;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * What compiled classes refer to, read from their constant pools with the JDK's class-file API (as the core's
 * {@code CoreBoundaryTest} does): every class entry, and every type named in a descriptor or generic signature
 * (so a type used only as {@code List<Pod>}, or written inline with its full name, is seen too).
 */
final class ClassRefs {
    private static final Pattern TYPE_IN_DESCRIPTOR = Pattern.compile("L([\\w/$]+)[;<]");

    private ClassRefs() {}

    /** Every main class of the module that holds {@code marker}, by binary name, as class-file bytes. */
    static Map<String, byte[]> moduleOf(Class<?> marker) {
        Path where;
        try {
            where = Path.of(marker.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException("cannot locate the classes of " + marker, e);
        }
        try {
            if (Files.isDirectory(where)) return read(where);
            try (FileSystem jar = FileSystems.newFileSystem(where)) {
                return read(jar.getPath("/"));
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the classes of " + marker + " at " + where, e);
        }
    }

    private static Map<String, byte[]> read(Path root) throws IOException {
        Map<String, byte[]> out = new TreeMap<>();
        try (Stream<Path> files = Files.walk(root)) {
            for (Path f : files.filter(p -> p.toString().endsWith(".class")).toList()) {
                String rel = root.relativize(f).toString().replace('\\', '/');
                if (rel.equals("module-info.class") || rel.endsWith("package-info.class")) continue;
                out.put(rel.substring(0, rel.length() - ".class".length()).replace('/', '.'), Files.readAllBytes(f));
            }
        }
        return out;
    }

    /** The binary names of the types {@code classFile} refers to (array components unwrapped, primitives left out). */
    static Set<String> referencedTypes(byte[] classFile) {
        Set<String> out = new TreeSet<>();
        for (var entry : ClassFile.of().parse(classFile).constantPool()) {
            if (entry instanceof ClassEntry c) {
                String name = c.asInternalName();
                if (name.startsWith("[")) addAll(out, name);
                else out.add(name.replace('/', '.'));
            } else if (entry instanceof Utf8Entry u) {
                addAll(out, u.stringValue());
            }
        }
        return out;
    }

    private static void addAll(Set<String> out, String descriptorOrSignature) {
        Matcher m = TYPE_IN_DESCRIPTOR.matcher(descriptorOrSignature);
        while (m.find()) out.add(m.group(1).replace('/', '.'));
    }
}
