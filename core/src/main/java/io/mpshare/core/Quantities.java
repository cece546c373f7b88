package io.mpshare.core;

import java.util.OptionalLong;

/**
 * Reads extended-resource amounts ({@code aliyun.com/gpu-mem}, {@code aliyun.com/gpu-core.percentage}, the
 * {@code aliyun.com/gpu-count} label, the context-reserve annotation) as Kubernetes writes them for mpshare: whole
 * numbers without fraction or suffix. The one parser every reader of those amounts uses (the extender, the device
 * plugin, {@code inspect}, the admission rules), so a spelling is accepted everywhere or nowhere.
 */
public final class Quantities {
    private Quantities() {}

    /**
     * The whole number {@code text} spells (blanks around it allowed, a sign allowed), or empty when it is null,
     * blank, a fraction, carries a suffix or does not fit a {@code long}.
     */
    public static OptionalLong whole(String text) {
        if (text == null || text.isBlank()) return OptionalLong.empty();
        try {
            return OptionalLong.of(Long.parseLong(text.trim()));
        } catch (NumberFormatException e) {
            return OptionalLong.empty();
        }
    }

    /** Parses {@code text} as a non-negative whole number for {@code what}; the message says what to change otherwise. */
    public static long parseWhole(String what, String text) {
        if (text == null || text.isBlank()) throw new IllegalArgumentException(what + " is empty: give a whole number");
        String t = text.trim();
        OptionalLong v = whole(t);
        if (v.isEmpty())
            throw new IllegalArgumentException(what + " is '" + t + "': extended resources take whole numbers (e.g. 7), not fractions or suffixes");
        if (v.getAsLong() < 0) throw new IllegalArgumentException(what + " is " + t + ": it must not be negative");
        return v.getAsLong();
    }
}
