package io.mpshare.core.validation;

import java.util.List;
import java.util.Optional;

/**
 * Which variable names an {@code envFrom} source can spell. A source's variables are {@code prefix + key} for keys
 * admission cannot see, and a key is any non-empty name; so the source can spell a name of a reserved family exactly
 * when its prefix begins the family ({@code ""}, {@code NV}, {@code NVIDIA_}: a key completes it) or the family begins
 * the prefix ({@code NVIDIA_X}: already inside it). Only a prefix that parts from every family, such as {@code APP_},
 * spells none.
 */
final class ReservedEnv {
    private ReservedEnv() {}

    /** The first of {@code families} that {@code prefix} followed by some key can spell, empty when none. */
    static Optional<String> spellable(String prefix, List<String> families) {
        for (String f : families) if (f.startsWith(prefix) || prefix.startsWith(f)) return Optional.of(f);
        return Optional.empty();
    }
}
