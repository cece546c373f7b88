package io.mpshare.sim.report.svg;

import java.util.ArrayList;
import java.util.List;

/**
 * Bar charts as inline SVG. Grouped vertical bars ({@link #grouped}: categories along x, one bar per
 * series in each) or horizontal bars ({@link #horizontal}: one labelled bar per category, value printed).
 */
public final class BarChart {
    private record Bars(String name, double[] values, String color) {}

    private final String title, yLabel;
    private final List<String> categories;
    private final List<Bars> series = new ArrayList<>();
    private int width = 760, height = 300;
    private boolean percent;

    public BarChart(String title, String yLabel, List<String> categories) {
        this.title = title;
        this.yLabel = yLabel;
        this.categories = List.copyOf(categories);
    }

    public BarChart series(String name, double[] values) { return series(name, values, Svg.color(series.size())); }

    public BarChart series(String name, double[] values, String color) {
        if (values.length != categories.size()) throw new IllegalArgumentException("one value per category");
        series.add(new Bars(name, values, color));
        return this;
    }

    public BarChart size(int w, int h) { width = w; height = h; return this; }

    /** Values are fractions, labelled as percentages. */
    public BarChart percent() { percent = true; return this; }

    private String fmt(double v) { return percent ? Svg.label(Math.round(v * 1000) / 10.0) + "%" : Svg.label(v); }

    /** Categories along x, one bar per series in each group. */
    public String grouped() {
        int left = 64, right = 16, bottom = 44;
        int top = LineChart.legendBelowTitle(title, left, width - right, series.stream().map(Bars::name).toList()) ? 56 : 40;
        double pw = width - left - right, ph = height - top - bottom;
        double max = 0;
        for (Bars s : series) for (double v : s.values) max = Math.max(max, v);
        double step = Svg.niceStep(max > 0 ? max : 1, 5);
        double hi = Math.max(step, Math.ceil(max / step) * step);
        StringBuilder b = new StringBuilder(Svg.open(width, height, title));
        b.append("<text x=\"").append(left).append("\" y=\"18\" font-size=\"14\" font-weight=\"600\" fill=\"#111\">").append(Svg.esc(title)).append("</text>");
        for (double v = 0; v <= hi + step / 1e6; v += step) {
            String y = Svg.n(top + ph - v / hi * ph);
            b.append("<line x1=\"").append(left).append("\" x2=\"").append(Svg.n(left + pw)).append("\" y1=\"").append(y).append("\" y2=\"").append(y)
                    .append("\" stroke=\"#e5e7eb\"/><text x=\"").append(left - 6).append("\" y=\"").append(y)
                    .append("\" dy=\"4\" text-anchor=\"end\" fill=\"#555\">").append(fmt(v)).append("</text>");
        }
        b.append("<text transform=\"translate(14 ").append(Svg.n(top + ph / 2)).append(") rotate(-90)\" text-anchor=\"middle\" fill=\"#333\">")
                .append(Svg.esc(yLabel)).append("</text>");
        double group = pw / Math.max(1, categories.size());
        double bar = Math.min(28, group * 0.8 / Math.max(1, series.size()));
        for (int c = 0; c < categories.size(); c++) {
            double gx = left + c * group + (group - bar * series.size()) / 2;
            for (int s = 0; s < series.size(); s++) {
                double v = series.get(s).values[c];
                double h = v / hi * ph;
                b.append("<rect x=\"").append(Svg.n(gx + s * bar)).append("\" y=\"").append(Svg.n(top + ph - h)).append("\" width=\"")
                        .append(Svg.n(bar - 2)).append("\" height=\"").append(Svg.n(h)).append("\" fill=\"").append(series.get(s).color)
                        .append("\"><title>").append(Svg.esc(series.get(s).name + ", " + categories.get(c) + ": " + fmt(v))).append("</title></rect>");
            }
            b.append("<text x=\"").append(Svg.n(left + c * group + group / 2)).append("\" y=\"").append(Svg.n(top + ph + 17))
                    .append("\" text-anchor=\"middle\" fill=\"#555\">").append(Svg.esc(categories.get(c))).append("</text>");
        }
        b.append("<line x1=\"").append(left).append("\" x2=\"").append(Svg.n(left + pw)).append("\" y1=\"").append(Svg.n(top + ph))
                .append("\" y2=\"").append(Svg.n(top + ph)).append("\" stroke=\"#999\"/>");
        LineChart.legend(b, width - right, top > 40 ? 30 : 9, series.stream().map(s -> new String[]{s.name, s.color}).toList());
        return b.append("</svg>").toString();
    }

    /** One horizontal bar per category, coloured by the first series' colour per category index, value at the end. */
    public String horizontal() {
        if (series.size() != 1) throw new IllegalStateException("horizontal bars take exactly one series");
        double[] vals = series.getFirst().values;
        int left = 180, right = 70, top = 34, rowH = 30;
        int h = top + rowH * categories.size() + 10;
        double pw = width - left - right;
        double max = 0;
        for (double v : vals) max = Math.max(max, v);
        StringBuilder b = new StringBuilder(Svg.open(width, h, title));
        b.append("<text x=\"0\" y=\"18\" font-size=\"14\" font-weight=\"600\" fill=\"#111\">").append(Svg.esc(title)).append("</text>");
        for (int c = 0; c < categories.size(); c++) {
            double y = top + c * rowH;
            double w = max > 0 ? vals[c] / max * pw : 0;
            b.append("<text x=\"").append(left - 8).append("\" y=\"").append(Svg.n(y + rowH / 2.0)).append("\" dy=\"4\" text-anchor=\"end\" fill=\"#333\">")
                    .append(Svg.esc(categories.get(c))).append("</text>");
            b.append("<rect x=\"").append(left).append("\" y=\"").append(Svg.n(y + 4)).append("\" width=\"").append(Svg.n(Math.max(1, w)))
                    .append("\" height=\"").append(rowH - 8).append("\" rx=\"3\" fill=\"").append(Svg.color(c)).append("\"/>");
            b.append("<text x=\"").append(Svg.n(left + w + 6)).append("\" y=\"").append(Svg.n(y + rowH / 2.0)).append("\" dy=\"4\" fill=\"#111\" font-weight=\"600\">")
                    .append(fmt(vals[c])).append("</text>");
        }
        return b.append("</svg>").toString();
    }
}
