package io.mpshare.sim.report;

import java.util.Locale;

/** Number formats shared by the text and HTML reports. */
public final class Fmt {
    private Fmt() {}

    /** A duration in simulated milliseconds as "0 s", "45 s", "12.5 min", "3.2 h". */
    public static String duration(double ms) {
        if (ms <= 0) return "0 s";
        double s = ms / 1000;
        if (s < 60) return String.format(Locale.ROOT, "%.0f s", s);
        if (s < 3600) return String.format(Locale.ROOT, "%.1f min", s / 60);
        return String.format(Locale.ROOT, "%.1f h", s / 3600);
    }

    public static String percent(double fraction) { return String.format(Locale.ROOT, "%.1f%%", fraction * 100); }

    public static String gib(double mib) { return String.format(Locale.ROOT, "%,.1f GiB", mib / 1024); }

    public static String count(long n) { return String.format(Locale.ROOT, "%,d", n); }
}
