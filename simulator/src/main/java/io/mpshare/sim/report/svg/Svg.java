package io.mpshare.sim.report.svg;

import java.util.List;
import java.util.Locale;

/** Small helpers shared by the charts: escaping, number formatting, nice axis ticks, a colour palette. */
public final class Svg {
    private Svg() {}

    /** Colour-blind-friendly palette (Okabe-Ito, reordered); series i takes colour i modulo its size. */
    public static final List<String> PALETTE = List.of("#0072B2", "#009E73", "#E69F00", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000");

    public static String color(int i) { return PALETTE.get(Math.floorMod(i, PALETTE.size())); }

    public static String esc(String s) {
        StringBuilder b = new StringBuilder(s.length() + 8);
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '<' -> b.append("&lt;");
                case '>' -> b.append("&gt;");
                case '&' -> b.append("&amp;");
                case '"' -> b.append("&quot;");
                case '\'' -> b.append("&#39;");
                default -> b.append(c);
            }
        }
        return b.toString();
    }

    /** A coordinate with at most one decimal. */
    public static String n(double v) {
        if (Double.isNaN(v) || Double.isInfinite(v)) return "0";
        long r = Math.round(v * 10);
        return r % 10 == 0 ? Long.toString(r / 10) : String.format(Locale.ROOT, "%.1f", r / 10.0);
    }

    /** A tick label: integers without decimals, otherwise up to two significant decimals. */
    public static String label(double v) {
        if (Math.abs(v - Math.rint(v)) < 1e-9) return String.format(Locale.ROOT, "%,d", (long) Math.rint(v));
        return String.format(Locale.ROOT, Math.abs(v) < 1 ? "%.2f" : "%.1f", v);
    }

    /** A "nice" tick step (1, 2 or 5 times a power of ten) giving about {@code ticks} ticks over {@code range}. */
    public static double niceStep(double range, int ticks) {
        if (!(range > 0)) return 1;
        double raw = range / Math.max(1, ticks);
        double mag = Math.pow(10, Math.floor(Math.log10(raw)));
        double f = raw / mag;
        double e = 1e-9; // 0.2 / 0.1 is 2.0000000000000004
        return (f <= 1 + e ? 1 : f <= 2 + e ? 2 : f <= 5 + e ? 5 : 10) * mag;
    }

    /** Opening tag of a self-contained, responsive SVG with the charts' font. */
    public static String open(int width, int height, String title) {
        return "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 " + width + " " + height + "\" width=\"100%\" role=\"img\""
                + " style=\"max-width:" + width + "px;font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;font-size:12px\">"
                + "<title>" + esc(title) + "</title>";
    }
}
