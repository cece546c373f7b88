package io.mpshare.core;

/** Parses extended-resource amounts as Kubernetes writes them: non-negative whole numbers. */
public final class Quantities {
    private Quantities() {}

    /** Parses {@code text} as a whole number for {@code what}; the message says what to change otherwise. */
    public static long parseWhole(String what, String text) {
        if (text == null || text.isBlank()) throw new IllegalArgumentException(what + " is empty: give a whole number");
        String t = text.trim();
        try {
            long v = Long.parseLong(t);
            if (v < 0) throw new IllegalArgumentException(what + " is " + t + ": it must not be negative");
            return v;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(what + " is '" + t + "': extended resources take whole numbers (e.g. 7), not fractions or suffixes");
        }
    }
}
