package io.mpshare.sim.report.svg;

import java.util.ArrayList;
import java.util.List;
import java.util.function.DoubleUnaryOperator;

/**
 * A line chart as inline SVG: several series over a shared x axis, optional horizontal reference lines,
 * a legend. Series are drawn as steps (the value holds until the next point) or straight lines.
 *
 * <pre>{@code
 * String svg = new LineChart("GPUs in use", "hours", "GPUs")
 *         .series("binpack", xs, ys).reference("cluster", 512).render();
 * }</pre>
 */
public final class LineChart {
    private record Line(String name, double[] x, double[] y, String color) {}
    private record Ref(String name, double y) {}

    private final String title, xLabel, yLabel;
    private final List<Line> lines = new ArrayList<>();
    private final List<Ref> refs = new ArrayList<>();
    private int width = 760, height = 300;
    private boolean steps = true;
    private Double yMax, yMin = 0.0;
    private boolean percent;

    public LineChart(String title, String xLabel, String yLabel) {
        this.title = title;
        this.xLabel = xLabel;
        this.yLabel = yLabel;
    }

    public LineChart series(String name, double[] x, double[] y) { return series(name, x, y, Svg.color(lines.size())); }

    public LineChart series(String name, double[] x, double[] y, String color) {
        if (x.length != y.length) throw new IllegalArgumentException("x and y differ in length");
        lines.add(new Line(name, x, y, color));
        return this;
    }

    /** A dashed horizontal line, e.g. the cluster's capacity. */
    public LineChart reference(String name, double y) { refs.add(new Ref(name, y)); return this; }

    public LineChart size(int w, int h) { width = w; height = h; return this; }

    /** Straight segments between points instead of steps. */
    public LineChart smooth() { steps = false; return this; }

    /** Fixes the y range (default: 0 to the largest value, rounded up to a tick). */
    public LineChart yRange(double min, double max) { yMin = min; yMax = max; return this; }

    /** Y values are fractions, labelled as percentages. */
    public LineChart percent() { percent = true; return this; }

    public String render() {
        int left = 64, right = 16, bottom = 44;
        int top = legendBelowTitle(title, left, width - right, lines.stream().map(Line::name).toList()) ? 56 : 40;
        double pw = width - left - right, ph = height - top - bottom;
        double x0 = Double.MAX_VALUE, x1 = -Double.MAX_VALUE, y1 = -Double.MAX_VALUE;
        for (Line l : lines) for (int i = 0; i < l.x.length; i++) { x0 = Math.min(x0, l.x[i]); x1 = Math.max(x1, l.x[i]); y1 = Math.max(y1, l.y[i]); }
        for (Ref r : refs) y1 = Math.max(y1, r.y);
        if (x0 > x1) { x0 = 0; x1 = 1; }
        if (x1 == x0) x1 = x0 + 1;
        double lo = yMin == null ? 0 : yMin;
        double yStep = Svg.niceStep((yMax != null ? yMax : Math.max(y1, lo + 1e-9)) - lo, 5);
        double hi = yMax != null ? yMax : Math.max(lo + yStep, Math.ceil(y1 / yStep) * yStep);
        double xStep = Svg.niceStep(x1 - x0, 8);
        final double fx0 = x0, fx1 = x1, flo = lo, fhi = hi;
        DoubleUnaryOperator sx = v -> left + (v - fx0) / (fx1 - fx0) * pw;
        DoubleUnaryOperator sy = v -> top + ph - (Math.min(Math.max(v, flo), fhi) - flo) / (fhi - flo) * ph;

        StringBuilder b = new StringBuilder(Svg.open(width, height, title));
        b.append("<text x=\"").append(left).append("\" y=\"18\" font-size=\"14\" font-weight=\"600\" fill=\"#111\">").append(Svg.esc(title)).append("</text>");
        for (double v = lo; v <= hi + yStep / 1e6; v += yStep) {
            String y = Svg.n(sy.applyAsDouble(v));
            b.append("<line x1=\"").append(left).append("\" x2=\"").append(Svg.n(left + pw)).append("\" y1=\"").append(y).append("\" y2=\"").append(y)
                    .append("\" stroke=\"#e5e7eb\"/>");
            b.append("<text x=\"").append(left - 6).append("\" y=\"").append(y).append("\" dy=\"4\" text-anchor=\"end\" fill=\"#555\">")
                    .append(percent ? Svg.label(Math.round(v * 1000) / 10.0) + "%" : Svg.label(v)).append("</text>");
        }
        for (double v = Math.ceil(x0 / xStep) * xStep; v <= x1 + xStep / 1e6; v += xStep) {
            String x = Svg.n(sx.applyAsDouble(v));
            b.append("<line x1=\"").append(x).append("\" x2=\"").append(x).append("\" y1=\"").append(Svg.n(top + ph)).append("\" y2=\"")
                    .append(Svg.n(top + ph + 4)).append("\" stroke=\"#999\"/>");
            b.append("<text x=\"").append(x).append("\" y=\"").append(Svg.n(top + ph + 17)).append("\" text-anchor=\"middle\" fill=\"#555\">")
                    .append(Svg.label(v)).append("</text>");
        }
        b.append("<line x1=\"").append(left).append("\" x2=\"").append(Svg.n(left + pw)).append("\" y1=\"").append(Svg.n(top + ph))
                .append("\" y2=\"").append(Svg.n(top + ph)).append("\" stroke=\"#999\"/>");
        b.append("<text x=\"").append(Svg.n(left + pw / 2)).append("\" y=\"").append(height - 6).append("\" text-anchor=\"middle\" fill=\"#333\">")
                .append(Svg.esc(xLabel)).append("</text>");
        b.append("<text transform=\"translate(14 ").append(Svg.n(top + ph / 2)).append(") rotate(-90)\" text-anchor=\"middle\" fill=\"#333\">")
                .append(Svg.esc(yLabel)).append("</text>");
        for (Ref r : refs) {
            String y = Svg.n(sy.applyAsDouble(r.y));
            b.append("<line x1=\"").append(left).append("\" x2=\"").append(Svg.n(left + pw)).append("\" y1=\"").append(y).append("\" y2=\"").append(y)
                    .append("\" stroke=\"#6b7280\" stroke-dasharray=\"6 4\"/>");
            b.append("<text x=\"").append(Svg.n(left + pw - 4)).append("\" y=\"").append(y).append("\" dy=\"-4\" text-anchor=\"end\" fill=\"#6b7280\">")
                    .append(Svg.esc(r.name)).append("</text>");
        }
        for (Line l : lines) {
            if (l.x.length == 0) continue;
            StringBuilder d = new StringBuilder();
            for (int i = 0; i < l.x.length; i++) {
                String x = Svg.n(sx.applyAsDouble(l.x[i])), y = Svg.n(sy.applyAsDouble(l.y[i]));
                if (i == 0) d.append('M').append(x).append(' ').append(y);
                else if (steps) d.append('H').append(x).append('V').append(y);
                else d.append('L').append(x).append(' ').append(y);
            }
            b.append("<path d=\"").append(d).append("\" fill=\"none\" stroke=\"").append(l.color)
                    .append("\" stroke-width=\"1.8\" stroke-linejoin=\"round\"><title>").append(Svg.esc(l.name)).append("</title></path>");
        }
        legend(b, width - right, top > 40 ? 30 : 9, lines.stream().map(l -> new String[]{l.name, l.color}).toList());
        return b.append("</svg>").toString();
    }

    private static double legendWidth(List<String> names) {
        double w = 0;
        for (String n : names) w += n.length() * 6.6 + 26;
        return w;
    }

    /** True when title and legend do not fit on one line, so the legend takes a row of its own. */
    static boolean legendBelowTitle(String title, int left, int xRight, List<String> names) {
        return left + title.length() * 8.5 + 16 + legendWidth(names) > xRight;
    }

    /** A legend right-aligned at {@code xRight}, its boxes' top at {@code y}. */
    static void legend(StringBuilder b, int xRight, int y, List<String[]> entries) {
        double x = xRight;
        for (int i = entries.size() - 1; i >= 0; i--) {
            String name = entries.get(i)[0];
            x -= name.length() * 6.6 + 26;
            b.append("<rect x=\"").append(Svg.n(x)).append("\" y=\"").append(y).append("\" width=\"12\" height=\"12\" rx=\"2\" fill=\"")
                    .append(entries.get(i)[1]).append("\"/>");
            b.append("<text x=\"").append(Svg.n(x + 16)).append("\" y=\"").append(y + 10).append("\" fill=\"#333\">").append(Svg.esc(name)).append("</text>");
        }
    }
}
