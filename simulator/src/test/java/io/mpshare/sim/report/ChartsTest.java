package io.mpshare.sim.report;

import io.mpshare.sim.report.svg.BarChart;
import io.mpshare.sim.report.svg.LineChart;
import io.mpshare.sim.report.svg.Svg;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class ChartsTest {
    @Test
    void lineChart_escapesNames_drawsOnePathPerSeries_andTheReference() {
        String svg = new LineChart("GPUs <in use>", "hours", "GPUs")
                .series("a & b", new double[]{0, 1, 2}, new double[]{1, 3, 2})
                .series("c", new double[]{0, 2}, new double[]{0, 5})
                .reference("cluster", 4).render();
        assertThat(svg).startsWith("<svg").endsWith("</svg>").contains("GPUs &lt;in use&gt;").contains("a &amp; b")
                .doesNotContain("a & b").doesNotContain("NaN").doesNotContain("Infinity");
        assertThat(svg.split("<path ", -1)).hasSize(3);
        assertThat(svg).contains("stroke-dasharray");
    }

    @Test
    void charts_emptyOrFlatData_renderWithoutNaN() {
        assertThat(new LineChart("t", "x", "y").render()).doesNotContain("NaN");
        assertThat(new LineChart("t", "x", "y").series("s", new double[]{5}, new double[]{0}).render()).doesNotContain("NaN");
        assertThat(new BarChart("t", "y", List.of("a", "b")).series("s", new double[]{0, 0}).grouped()).doesNotContain("NaN");
        assertThat(new BarChart("t", "y", List.of("a")).series("s", new double[]{0}).horizontal()).doesNotContain("NaN");
    }

    @Test
    void niceStep_isOneTwoOrFiveTimesAPowerOfTen() {
        assertThat(Svg.niceStep(500, 5)).isEqualTo(100);
        assertThat(Svg.niceStep(512, 5)).isEqualTo(200);
        assertThat(Svg.niceStep(1, 5)).isEqualTo(0.2, org.assertj.core.data.Offset.offset(1e-12));
        assertThat(Svg.niceStep(7939, 5)).isEqualTo(2000);
    }

    @Test
    void html_isSelfContained() {
        String page = new Html("r").h1("x < y").table(List.of("a", "b"), List.of(List.of("1", "<2>"))).render();
        assertThat(page).startsWith("<!DOCTYPE html>").contains("x &lt; y").contains("&lt;2&gt;").doesNotContain("<script").doesNotContain("http");
    }
}
