package io.mpshare.sim.workload;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The built-in workload: a mix of small inference pods, medium and large jobs arriving as a Poisson
 * process. Everything is drawn from one {@link SplittableRandom} seeded with {@code seed}, so a seed
 * always gives the same pods (on any JDK). docs/simulate.md explains the choices.
 *
 * <table>
 * <caption>The mix</caption>
 * <tr><th>kind</th><th>share</th><th>gpu-mem (GiB)</th><th>gpu-core %</th><th>gpu-count</th><th>lifetime</th></tr>
 * <tr><td>small (inference)</td><td>70%</td><td>1, 2, 3, 4, 6 or 8</td><td>half ask 10, 20, 25 or 30</td><td>1</td>
 *     <td>lognormal, median 40 min, sigma 1.0</td></tr>
 * <tr><td>medium</td><td>22%</td><td>10-40, even</td><td>30% ask 30 or 50</td><td>1</td><td>exponential, mean 60 min</td></tr>
 * <tr><td>large</td><td>8%</td><td>40-136 per GPU, multiples of 4</td><td>none</td><td>1, or 2 for 30% of them</td>
 *     <td>lognormal, median 3 h, sigma 0.7</td></tr>
 * </table>
 * Lifetimes are clamped to 1 min - 24 h.
 */
public final class DefaultWorkload {
    public static final int DEFAULT_PODS = 5_000;
    public static final double DEFAULT_RATE_PER_HOUR = 360;

    private static final long MINUTE = 60_000, HOUR = 60 * MINUTE;
    private static final int[] SMALL_GIB = {1, 2, 3, 4, 6, 8};
    private static final int[] SMALL_CORE = {10, 20, 25, 30};
    private static final int[] MEDIUM_CORE = {30, 50};

    /**
     * @param seed          random seed
     * @param pods          number of pods, or 0 to draw arrivals for {@code durationMs}
     * @param durationMs    arrival window when {@code pods} is 0
     * @param ratePerHour   mean arrivals per hour
     */
    public record Spec(long seed, int pods, long durationMs, double ratePerHour) {
        public Spec {
            if (pods < 0) throw new IllegalArgumentException("pods must be >= 0");
            if (pods == 0 && durationMs <= 0) throw new IllegalArgumentException("give a pod count or a duration");
            if (!(ratePerHour > 0) || Double.isInfinite(ratePerHour)) throw new IllegalArgumentException("rate must be > 0 pods per hour");
        }

        public static Spec ofPods(long seed, int pods, double ratePerHour) { return new Spec(seed, pods, 0, ratePerHour); }
    }

    private DefaultWorkload() {}

    public static Workload generate(Spec spec) {
        var rnd = new SplittableRandom(spec.seed());
        double meanGapMs = HOUR / spec.ratePerHour();
        List<SimPod> pods = new ArrayList<>(spec.pods() > 0 ? spec.pods() : 1024);
        double t = 0;
        for (int id = 0; ; id++) {
            t += -Math.log(1 - rnd.nextDouble()) * meanGapMs;
            long arrival = (long) t;
            if (spec.pods() > 0 ? id >= spec.pods() : arrival >= spec.durationMs()) break;
            pods.add(draw(id, arrival, rnd));
        }
        String size = spec.pods() > 0 ? spec.pods() + " pods" : "arrivals over " + spec.durationMs() / MINUTE + " min";
        return new Workload("built-in mix (70% small inference, 22% medium, 8% large), " + size + ", "
                + Math.round(spec.ratePerHour()) + " pods/h, seed " + spec.seed(), pods);
    }

    private static SimPod draw(int id, long arrival, SplittableRandom rnd) {
        double u = rnd.nextDouble();
        if (u < 0.70) {
            long gib = SMALL_GIB[rnd.nextInt(SMALL_GIB.length)];
            int core = rnd.nextBoolean() ? SMALL_CORE[rnd.nextInt(SMALL_CORE.length)] : 0;
            return new SimPod(id, arrival, lognormal(rnd, 40 * MINUTE, 1.0), gib * 1024, core, 1, "small");
        }
        if (u < 0.92) {
            long gib = 10 + 2L * rnd.nextInt(16); // 10..40
            int core = rnd.nextDouble() < 0.3 ? MEDIUM_CORE[rnd.nextInt(MEDIUM_CORE.length)] : 0;
            long life = clamp((long) (-Math.log(1 - rnd.nextDouble()) * HOUR));
            return new SimPod(id, arrival, life, gib * 1024, core, 1, "medium");
        }
        long perGpu = 40 + 4L * rnd.nextInt(25); // 40..136
        int count = rnd.nextDouble() < 0.3 ? 2 : 1;
        return new SimPod(id, arrival, lognormal(rnd, 3 * HOUR, 0.7), perGpu * count * 1024, 0, count, "large");
    }

    private static long lognormal(SplittableRandom rnd, long medianMs, double sigma) {
        // Box-Muller from two uniforms: stable across JDKs, unlike nextGaussian's algorithm choice
        double g = Math.sqrt(-2 * Math.log(1 - rnd.nextDouble())) * Math.cos(2 * Math.PI * rnd.nextDouble());
        return clamp((long) (medianMs * Math.exp(sigma * g)));
    }

    private static long clamp(long ms) { return Math.max(MINUTE, Math.min(24 * HOUR, ms)); }
}
