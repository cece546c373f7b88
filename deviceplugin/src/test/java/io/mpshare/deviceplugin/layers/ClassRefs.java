package io.mpshare.deviceplugin.layers;

import java.io.IOException;
import java.lang.classfile.ClassFile;
import java.lang.classfile.ClassModel;
import java.lang.classfile.constantpool.ClassEntry;
import java.lang.classfile.constantpool.Utf8Entry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Which classes each compiled class refers to, read from its constant pool (as core's {@code CoreBoundaryTest} does):
 * every class entry, and every type named in a descriptor or generic signature (a parameter, field or type argument
 * that is never instantiated or cast appears only there). Catches inline fully qualified names, which import lines
 * do not show.
 */
final class ClassRefs {
    private static final Pattern TYPE = Pattern.compile("L([\\w/$]+)[;<]");

    private ClassRefs() {}

    /** Binary class name (dots) → the binary names of the classes it refers to, for every class file under {@code root}. */
    static Map<String, Set<String>> read(Path root) throws IOException {
        Map<String, Set<String>> out = new TreeMap<>();
        try (Stream<Path> files = Files.walk(root)) {
            for (Path f : files.filter(p -> p.toString().endsWith(".class")).toList()) {
                ClassModel m = ClassFile.of().parse(f);
                out.put(dots(m.thisClass().asInternalName()), of(m));
            }
        }
        return out;
    }

    /** The classes {@code m} refers to (binary names, dots), itself left out. */
    static Set<String> of(ClassModel m) {
        Set<String> refs = new TreeSet<>();
        for (var entry : m.constantPool()) {
            if (entry instanceof ClassEntry c) {
                String n = c.asInternalName();
                while (n.startsWith("[")) n = n.substring(1);
                if (n.startsWith("L") && n.endsWith(";")) n = n.substring(1, n.length() - 1);
                if (n.length() > 1) refs.add(dots(n));
            } else if (entry instanceof Utf8Entry u) {
                Matcher t = TYPE.matcher(u.stringValue());
                while (t.find()) refs.add(dots(t.group(1)));
            }
        }
        refs.remove(dots(m.thisClass().asInternalName()));
        return refs;
    }

    /** A rule: classes in {@code from} (a package prefix) may not refer to any class under one of {@code forbidden}. */
    record Rule(String name, String from, List<String> forbidden, Set<String> exempt) {
        Rule(String name, String from, List<String> forbidden) { this(name, from, forbidden, Set.of()); }

        /** "class refers to class" for each breach in {@code refs}. */
        List<String> breaches(Map<String, Set<String>> refs) {
            List<String> out = new ArrayList<>();
            refs.forEach((cls, used) -> {
                if (!cls.startsWith(from) || exempt.contains(outer(cls))) return;
                for (String u : used) for (String f : forbidden) if (u.equals(f) || u.startsWith(f + ".") || u.startsWith(f + "$"))
                    out.add(cls + " refers to " + u);
            });
            return out;
        }
    }

    /** The top-level class of a nested one: {@code a.B$C} → {@code a.B}. */
    static String outer(String cls) {
        int d = cls.indexOf('$');
        return d < 0 ? cls : cls.substring(0, d);
    }

    private static String dots(String internal) { return internal.replace('/', '.'); }
}
