package io.mpshare.cli.layering;

import io.mpshare.testing.ClassRefs;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * One layering rule over compiled classes: the classes it applies to may not refer to the forbidden types.
 *
 * @param what      the rule, as a person reads it in a failure
 * @param applies   which classes (by binary name) the rule is about
 * @param forbidden which referred types (by binary name; members as {@code Owner.member}) break it
 */
record LayerRule(String what, Predicate<String> applies, Predicate<String> forbidden) {
    /** {@code "<class> refers to <type>"} for each break in {@code classes}; empty when the rule holds. */
    List<String> violations(Map<String, byte[]> classes) {
        List<String> out = new ArrayList<>();
        classes.forEach((name, bytes) -> {
            if (!applies.test(name)) return;
            for (String type : ClassRefs.targets(bytes)) if (forbidden.test(type)) out.add(name + " refers to " + type);
        });
        return out;
    }

    /** Classes in {@code pkg} or below it. */
    static Predicate<String> inPackage(String pkg) { return n -> n.startsWith(pkg + "."); }
}
