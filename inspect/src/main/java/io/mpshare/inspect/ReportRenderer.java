package io.mpshare.inspect;

import io.mpshare.core.MemoryUnit;
import io.mpshare.core.codec.DomainsCodec.Domain;
import io.mpshare.core.codec.DomainsCodec.Suspect;
import io.mpshare.inspect.GpuReport.GpuRow;
import io.mpshare.inspect.GpuReport.NodeRow;
import io.mpshare.inspect.GpuReport.PodRow;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalLong;
import tools.jackson.databind.SerializationFeature;
import tools.jackson.databind.json.JsonMapper;

/**
 * Prints a {@link GpuReport}: a table readable at a glance (one line per GPU, a total line per node, the pods under
 * each GPU with {@code details}, a cluster summary line; then the MPS fault domains that do not serve, every domain with
 * {@code details}, and the fault suspects) or JSON for scripts. Pure: no I/O.
 *
 * <pre>
 * NODE        GPU  MODEL        ALLOCATED/TOTAL (GiB)  USED (GiB)  PODS
 * gpu-node-1  0    NVIDIA H200  7.5/140.4 (5%)         6.1         1
 * </pre>
 */
public final class ReportRenderer {
    private final MemoryUnit unit;

    public ReportRenderer(MemoryUnit unit) { this.unit = unit; }

    public String table(GpuReport r, boolean details) {
        List<String[]> rows = new ArrayList<>();
        rows.add(new String[]{"NODE", "GPU", "MODEL", "ALLOCATED/TOTAL (" + unit.symbol() + ")", "USED (" + unit.symbol() + ")", "PODS"});
        for (NodeRow n : r.nodes()) {
            boolean first = true;
            for (GpuRow g : n.gpus()) {
                rows.add(new String[]{first ? n.name() : "", Integer.toString(g.gpu().index()),
                        g.gpu().model() + (g.gpu().healthy() ? "" : " (unhealthy)"),
                        ratio(g.allocatedMib(), g.gpu().totalMib()), used(g.usedMib()), Integer.toString(g.pods().size())});
                first = false;
                if (details) for (PodRow p : g.pods())
                    rows.add(new String[]{"", "", "  " + p.pod(), mem(p.allocatedMib()), used(p.usedMib()), p.phase().name().toLowerCase(Locale.ROOT)});
            }
            if (n.gpus().size() > 1)
                rows.add(new String[]{"", "all", "", ratio(n.allocatedMib(), n.totalMib()), used(n.usedMib()), ""});
            if (n.gpus().isEmpty()) rows.add(new String[]{n.name(), "-", "no GPU published", "", "", ""});
        }
        StringBuilder sb = new StringBuilder();
        int[] w = widths(rows);
        for (String[] row : rows) line(sb, row, w);
        sb.append("-".repeat(Math.max(20, w[0] + w[1] + w[2] + w[3] + w[4] + w[5] + 10))).append('\n');
        sb.append("Allocated/Total GPU memory in cluster: ").append(mem(r.allocatedMib())).append('/').append(mem(r.totalMib()))
          .append(' ').append(unit.symbol()).append(" (").append(percent(r.allocatedMib(), r.totalMib())).append("%)")
          .append(", used ").append(used(r.usedMib())).append(r.usedMib().isPresent() ? " " + unit.symbol() : "")
          .append("; ").append(r.nodes().size()).append(" node(s), ").append(r.gpuCount()).append(" GPU(s), ")
          .append(r.podCount()).append(" pod(s)\n");
        for (NodeRow n : r.nodes()) {
            for (GpuRow g : n.gpus())
                for (Domain d : g.domains())
                    if (details || !SERVING.equals(d.state()))
                        sb.append("domain ").append(d.id()).append(" (").append(d.kind().label()).append(' ').append(d.who()).append(") on ")
                          .append(n.name()).append(" GPU ").append(g.gpu().index()).append(": ").append(d.state()).append(", ")
                          .append(d.pods()).append(d.pods() == 1 ? " pod" : " pods").append(d.faults() > 0 ? ", " + faults(d) : "").append('\n');
            for (Suspect s : n.suspects())
                sb.append("fault suspect on ").append(n.name()).append(": ").append(s.workload()).append(" (its new pods get an MPS domain of their own until ")
                  .append(s.until()).append(")\n");
        }
        for (String p : r.problems()) sb.append("warning: ").append(p).append('\n');
        return sb.toString();
    }

    public String json(GpuReport r) {
        Map<String, Object> root = new LinkedHashMap<>();
        List<Object> nodes = new ArrayList<>();
        for (NodeRow n : r.nodes()) {
            List<Object> gpus = new ArrayList<>();
            for (GpuRow g : n.gpus()) {
                List<Object> pods = new ArrayList<>();
                for (PodRow p : g.pods()) {
                    Map<String, Object> pm = new LinkedHashMap<>();
                    pm.put("namespace", p.pod().namespace());
                    pm.put("name", p.pod().name());
                    pm.put("allocatedMiB", p.allocatedMib());
                    pm.put("usedMiB", boxed(p.usedMib()));
                    pm.put("phase", p.phase().name().toLowerCase(Locale.ROOT));
                    pods.add(pm);
                }
                Map<String, Object> gm = new LinkedHashMap<>();
                gm.put("index", g.gpu().index());
                gm.put("uuid", g.gpu().uuid());
                gm.put("model", g.gpu().model());
                gm.put("healthy", g.gpu().healthy());
                gm.put("totalMiB", g.gpu().totalMib());
                gm.put("allocatedMiB", g.allocatedMib());
                gm.put("usedMiB", boxed(g.usedMib()));
                gm.put("pods", pods);
                List<Object> domains = new ArrayList<>();
                for (Domain d : g.domains()) {
                    Map<String, Object> dm = new LinkedHashMap<>();
                    dm.put("id", d.id());
                    dm.put("kind", d.kind().label());
                    dm.put("who", d.who());
                    dm.put("state", d.state());
                    dm.put("pods", d.pods());
                    dm.put("faults", d.faults());
                    dm.put("lastFault", d.lastFault() == null ? null : d.lastFault().toString());
                    domains.add(dm);
                }
                gm.put("domains", domains);
                gpus.add(gm);
            }
            Map<String, Object> nm = new LinkedHashMap<>();
            nm.put("name", n.name());
            nm.put("totalMiB", n.totalMib());
            nm.put("allocatedMiB", n.allocatedMib());
            nm.put("usedMiB", boxed(n.usedMib()));
            nm.put("gpus", gpus);
            List<Object> suspects = new ArrayList<>();
            for (Suspect s : n.suspects()) suspects.add(Map.of("workload", s.workload(), "until", s.until().toString()));
            nm.put("suspects", suspects);
            nodes.add(nm);
        }
        root.put("nodes", nodes);
        Map<String, Object> sum = new LinkedHashMap<>();
        sum.put("nodes", r.nodes().size());
        sum.put("gpus", r.gpuCount());
        sum.put("pods", r.podCount());
        sum.put("totalMiB", r.totalMib());
        sum.put("allocatedMiB", r.allocatedMib());
        sum.put("usedMiB", boxed(r.usedMib()));
        root.put("summary", sum);
        root.put("problems", r.problems());
        return JsonMapper.builder().enable(SerializationFeature.INDENT_OUTPUT).build().writeValueAsString(root) + "\n";
    }

    private static final String SERVING = "SERVING";

    /** {@code 0 faults}, {@code 2 faults, last 2026-12-01T09:58:03Z}. */
    private static String faults(Domain d) {
        return d.faults() + (d.faults() == 1 ? " fault" : " faults") + (d.lastFault() == null ? "" : ", last " + d.lastFault());
    }

    private static Long boxed(OptionalLong v) { return v.isPresent() ? v.getAsLong() : null; }

    private String ratio(long allocated, long total) {
        return mem(allocated) + "/" + mem(total) + " (" + percent(allocated, total) + "%)";
    }

    private static long percent(long part, long total) { return total == 0 ? 0 : Math.round(100.0 * part / total); }

    private String used(OptionalLong v) { return v.isPresent() ? mem(v.getAsLong()) : "-"; }

    /** Whole units without decimals, else one decimal: 7, 7.5, 140.4. */
    String mem(long mib) {
        long per = unit.mibPerUnit();
        if (mib % per == 0) return Long.toString(mib / per);
        return String.format(Locale.ROOT, "%.1f", (double) mib / per);
    }

    private static int[] widths(List<String[]> rows) {
        int[] w = new int[rows.getFirst().length];
        for (String[] r : rows) for (int i = 0; i < r.length; i++) w[i] = Math.max(w[i], r[i].length());
        return w;
    }

    private static void line(StringBuilder sb, String[] row, int[] w) {
        StringBuilder l = new StringBuilder();
        for (int i = 0; i < row.length; i++) {
            l.append(row[i]);
            if (i + 1 < row.length) l.append(" ".repeat(w[i] - row[i].length() + 2));
        }
        sb.append(l.toString().stripTrailing()).append('\n');
    }
}
