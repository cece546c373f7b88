package io.mpshare.core.props;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * A tiny seeded property runner for plain JUnit tests. Try {@code i} of property {@code name} draws its
 * case from {@code new SplittableRandom(seed(name, i))}, so every run checks the same cases and a
 * failure names the seed that reproduces it. After a failure the remaining tries still run, and the
 * report shows the first failure and the smallest failing case found (by the length of its
 * {@code toString}): no shrinking, but often a shorter example.
 *
 * <p>Replay one case: {@code -Dprops.seed=<seed>} (with {@code -Dtest=Class#method}); more or fewer
 * tries: {@code -Dprops.tries=<n>} for every property.
 */
public final class Props {
    private Props() {}

    /** The fixed base seed ("mpshare"); a property's try {@code i} uses {@code BASE_SEED ^ hash(name)} + i. */
    public static final long BASE_SEED = 0x6D70_7368_6172_65L;

    /** Draws one case. */
    @FunctionalInterface public interface Gen<T> { T next(SplittableRandom r); }

    /** Checks one case: returns normally or throws (an assertion error, usually). */
    @FunctionalInterface public interface Property<T> { void check(T value) throws Exception; }

    public static long seed(String name, int tryIndex) {
        return (BASE_SEED ^ ((long) name.hashCode() << 20)) + tryIndex;
    }

    /** Runs {@code tries} cases of {@code property}; throws an {@link AssertionError} naming the failing seed(s) and case(s). */
    public static <T> void check(String name, int tries, Gen<T> gen, Property<T> property) {
        String replay = System.getProperty("props.seed");
        if (replay != null && !replay.isBlank()) {
            long seed = Long.parseLong(replay.strip());
            Failure f = attempt(seed, gen, property);
            if (f != null) throw report(name, 1, 1, f, f);
            return;
        }
        int n = Integer.getInteger("props.tries", tries);
        Failure first = null, smallest = null;
        int failed = 0;
        for (int i = 0; i < n; i++) {
            Failure f = attempt(seed(name, i), gen, property);
            if (f == null) continue;
            failed++;
            if (first == null) first = f;
            if (smallest == null || f.shown.length() < smallest.shown.length()) smallest = f;
        }
        if (first != null) throw report(name, failed, n, first, smallest);
    }

    private record Failure(long seed, String shown, Throwable error) {}

    private static <T> Failure attempt(long seed, Gen<T> gen, Property<T> property) {
        T value = null;
        try {
            value = gen.next(new SplittableRandom(seed));
            property.check(value);
            return null;
        } catch (Exception | AssertionError e) {
            return new Failure(seed, String.valueOf(value), e);
        }
    }

    private static AssertionError report(String name, int failed, int tries, Failure first, Failure smallest) {
        var msg = new StringBuilder().append("property ").append(name).append(" failed on ").append(failed)
                .append(" of ").append(tries).append(" tries\n  first failure: seed=").append(first.seed)
                .append(" (replay: -Dprops.seed=").append(first.seed).append(")\n  case: ").append(first.shown)
                .append("\n  error: ").append(first.error);
        if (smallest != first)
            msg.append("\n  smallest failing case: seed=").append(smallest.seed).append("\n  case: ").append(smallest.shown)
                    .append("\n  error: ").append(smallest.error);
        AssertionError e = new AssertionError(msg.toString(), first.error);
        if (smallest != first) e.addSuppressed(smallest.error);
        return e;
    }

    // Generators. Like most property tools they hit the bounds more often than uniform: 1 in 16 each.

    /** An int in [lo, hi]. */
    public static int between(SplittableRandom r, int lo, int hi) {
        int edge = r.nextInt(16);
        if (edge == 0) return lo;
        if (edge == 1) return hi;
        return r.nextInt(lo, hi + 1);
    }

    /** One of {@code values}, each equally likely (repeat a value to weight it). */
    @SafeVarargs
    public static <T> T oneOf(SplittableRandom r, T... values) { return values[r.nextInt(values.length)]; }

    /** A list of {@code min..max} elements (bounds favoured as in {@link #between}). */
    public static <T> List<T> listOf(SplittableRandom r, int min, int max, Gen<T> element) {
        int size = between(r, min, max);
        List<T> out = new ArrayList<>(size);
        for (int i = 0; i < size; i++) out.add(element.next(r));
        return out;
    }
}
