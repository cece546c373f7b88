package io.mpshare.sim.report;

import io.mpshare.sim.report.svg.Svg;

import java.util.List;

/**
 * A self-contained HTML page (inline CSS, no scripts) with sections, tables and charts. Reusable by any
 * simulator report.
 */
public final class Html {
    private final StringBuilder body = new StringBuilder();
    private final String title;

    public Html(String title) { this.title = title; }

    public static String esc(String s) { return Svg.esc(s); }

    public Html h1(String text) { body.append("<h1>").append(esc(text)).append("</h1>\n"); return this; }

    public Html h2(String text) { body.append("<h2>").append(esc(text)).append("</h2>\n"); return this; }

    public Html p(String text) { body.append("<p>").append(esc(text)).append("</p>\n"); return this; }

    /** A paragraph with a CSS class (muted, headline, ...). */
    public Html p(String cssClass, String text) {
        body.append("<p class=\"").append(esc(cssClass)).append("\">").append(esc(text)).append("</p>\n");
        return this;
    }

    /** Raw, already safe HTML or SVG. */
    public Html raw(String html) { body.append(html).append('\n'); return this; }

    /** A chart in a card. */
    public Html figure(String svg, String caption) {
        body.append("<figure>").append(svg).append("<figcaption>").append(esc(caption)).append("</figcaption></figure>\n");
        return this;
    }

    /** A table; cells are text (escaped); columns after the first are right-aligned. */
    public Html table(List<String> header, List<List<String>> rows) {
        body.append("<table><thead><tr>");
        for (String h : header) body.append("<th>").append(esc(h)).append("</th>");
        body.append("</tr></thead><tbody>");
        for (List<String> r : rows) {
            body.append("<tr>");
            for (String c : r) body.append("<td>").append(esc(c)).append("</td>");
            body.append("</tr>");
        }
        body.append("</tbody></table>\n");
        return this;
    }

    public Html dl(List<String[]> terms) {
        body.append("<dl>");
        for (String[] t : terms) body.append("<dt>").append(esc(t[0])).append("</dt><dd>").append(esc(t[1])).append("</dd>");
        body.append("</dl>\n");
        return this;
    }

    public String render() {
        return "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                + "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>" + esc(title) + "</title><style>"
                + "body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;color:#111;background:#f6f7f9;margin:0}"
                + "main{max-width:900px;margin:0 auto;padding:24px 20px 60px}"
                + "h1{font-size:26px;margin:8px 0 4px}h2{font-size:18px;margin:32px 0 8px;border-bottom:1px solid #e5e7eb;padding-bottom:4px}"
                + ".muted{color:#555;margin:2px 0}"
                + ".headline{font-size:20px;font-weight:600;background:#fff;border-left:6px solid #0072B2;padding:14px 18px;border-radius:6px;"
                + "box-shadow:0 1px 2px rgba(0,0,0,.06)}"
                + "figure{background:#fff;margin:14px 0;padding:12px 14px;border-radius:8px;box-shadow:0 1px 2px rgba(0,0,0,.06)}"
                + "figcaption{color:#555;font-size:13px;margin-top:6px}"
                + "table{border-collapse:collapse;background:#fff;width:100%;font-size:13px;box-shadow:0 1px 2px rgba(0,0,0,.06)}"
                + "th,td{padding:6px 8px;border-bottom:1px solid #eee;text-align:right;white-space:nowrap}"
                + "th:first-child,td:first-child{text-align:left}th{background:#f0f2f5;font-weight:600}"
                + "dl{display:grid;grid-template-columns:max-content 1fr;gap:4px 14px;font-size:14px}dt{font-weight:600}dd{margin:0;color:#333}"
                + "code{background:#eef;padding:1px 4px;border-radius:3px}"
                + "</style></head><body><main>\n" + body + "</main></body></html>\n";
    }
}
