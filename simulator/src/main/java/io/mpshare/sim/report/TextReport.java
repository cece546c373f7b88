package io.mpshare.sim.report;

import io.mpshare.sim.Simulation;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;

/** The summary on stdout: what ran, the headline, the table, and where the HTML report is. */
public final class TextReport {
    private TextReport() {}

    public static void write(Simulation.Result r, String workloadLine, PrintWriter out) {
        out.println("mpshare simulate: " + r.scenario().cluster().describe());
        out.println("workload: " + workloadLine);
        out.println();
        out.println(">>> " + Summary.headline(r));
        out.println("    " + Summary.extenderDefaultLine(r));
        out.println();
        for (String l : Summary.clusterLines(r)) out.println("  " + l);
        out.println();
        out.print(table(Summary.COLUMNS, Summary.rows(r)));
        out.println();
        out.println("GPUs needed: peak GPUs in use when nodes are added until no pod waits; saves: 1 - GPUs needed / whole GPU's."
                + " Other columns: the " + r.scenario().cluster().gpus() + "-GPU cluster.");
        out.println("mem util: memory pods asked / memory of GPUs in use; stranded: free memory on GPUs in use that no pod of the mix can get.");
        r.models().forEach(m -> m.fixed().rejectReasons().forEach((why, n) ->
                out.println("rejected by " + m.model().label() + ": " + n + " pod(s): " + why)));
        out.flush();
    }

    /** A plain-text table: first column left-aligned, the others right-aligned. */
    public static String table(List<String> header, List<List<String>> rows) {
        List<List<String>> all = new ArrayList<>();
        all.add(header);
        all.addAll(rows);
        int[] w = new int[header.size()];
        for (List<String> r : all) for (int i = 0; i < r.size(); i++) w[i] = Math.max(w[i], r.get(i).length());
        StringBuilder b = new StringBuilder();
        for (int k = 0; k < all.size(); k++) {
            List<String> r = all.get(k);
            for (int i = 0; i < r.size(); i++) {
                String c = r.get(i);
                if (i > 0) b.append("  ");
                if (i == 0) b.append(c).append(" ".repeat(w[i] - c.length()));
                else b.append(" ".repeat(w[i] - c.length())).append(c);
            }
            b.append('\n');
            if (k == 0) {
                int total = 0;
                for (int x : w) total += x;
                b.append("-".repeat(total + 2 * (w.length - 1))).append('\n');
            }
        }
        return b.toString();
    }
}
