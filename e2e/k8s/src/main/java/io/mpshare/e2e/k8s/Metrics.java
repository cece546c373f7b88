package io.mpshare.e2e.k8s;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One scrape of a Prometheus text endpoint (the extender's {@code /metrics}, kube-scheduler's): samples by their full
 * name with labels as written ({@code name{a="x",b="y"}}), and the difference of two scrapes.
 */
public record Metrics(Map<String, Double> samples) {
    private static final Pattern LINE = Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*(?:\\{[^}]*\\})?) (\\S+)(?: \\d+)?$", Pattern.MULTILINE);

    /** GETs {@code url} with {@code http} (a loopback endpoint; see {@link Components#get}). */
    public static Metrics scrape(HttpClient http, String url) {
        try {
            var r = http.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() != 200) throw new IllegalStateException(url + " answered " + r.statusCode() + ": " + r.body().lines().findFirst().orElse(""));
            return parse(r.body());
        } catch (IOException e) {
            throw new IllegalStateException("cannot read " + url + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted reading " + url, e);
        }
    }

    public static Metrics parse(String text) {
        Map<String, Double> out = new HashMap<>();
        Matcher m = LINE.matcher(text);
        while (m.find()) {
            try {
                out.put(m.group(1), Double.parseDouble(m.group(2)));
            } catch (NumberFormatException e) {
                // NaN written another way, or not a sample: skipped
            }
        }
        return new Metrics(Map.copyOf(out));
    }

    /** This scrape less {@code before}, sample by sample (a sample absent before counts from 0). */
    public Metrics minus(Metrics before) {
        Map<String, Double> out = new HashMap<>();
        samples.forEach((k, v) -> out.put(k, v - before.samples.getOrDefault(k, 0.0)));
        return new Metrics(Map.copyOf(out));
    }

    /** The sum of the samples named {@code name} whose labels include every {@code label="value"} given (e.g. {@code "verb=\"filter\""}). */
    public double sum(String name, String... labels) {
        double s = 0;
        for (var e : samples.entrySet()) {
            String k = e.getKey();
            if (!(k.equals(name) || k.startsWith(name + "{"))) continue;
            boolean all = true;
            for (String l : labels) if (!hasLabel(k, l)) { all = false; break; }
            if (all) s += e.getValue();
        }
        return s;
    }

    /** Whether {@code sample}'s labels include {@code label} ({@code a="x"}) whole. */
    private static boolean hasLabel(String sample, String label) {
        for (int i = sample.indexOf(label); i >= 0; i = sample.indexOf(label, i + 1)) {
            if (i == 0) continue;
            char before = sample.charAt(i - 1), after = i + label.length() < sample.length() ? sample.charAt(i + label.length()) : ' ';
            if ((before == '{' || before == ',') && (after == ',' || after == '}')) return true;
        }
        return false;
    }

    /** Mean of a histogram or summary ({@code name_sum / name_count}) over the samples with {@code labels}, in its unit; NaN without observations. */
    public double mean(String name, String... labels) {
        double n = sum(name + "_count", labels);
        return n == 0 ? Double.NaN : sum(name + "_sum", labels) / n;
    }
}
