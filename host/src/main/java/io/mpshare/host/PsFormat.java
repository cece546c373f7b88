package io.mpshare.host;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Locale;

/** Renders the host's {@code ps} answer as the text {@code mpshare ps} prints. */
public final class PsFormat {
    private PsFormat() {}

    public static String text(JsonNode ps) {
        StringBuilder sb = new StringBuilder();
        JsonNode d = ps.path("daemon");
        sb.append("MPS daemon: ").append(d.path("ready").asBoolean() ? "ready" : "DOWN — " + d.path("message").asText())
                .append(" (pipe ").append(d.path("pipeDir").asText()).append(")\n\n");
        sb.append(String.format("%-4s %-14s %10s %10s %10s  %s%n", "GPU", "MODEL", "TOTAL", "ALLOCATED", "USED", "HEALTH"));
        for (JsonNode g : ps.path("gpus"))
            sb.append(String.format("%-4d %-14s %10s %10s %10s  %s%n", g.path("index").asInt(), g.path("model").asText(),
                    gib(g.path("totalMib").asLong()), gib(g.path("allocatedMib").asLong()), gib(g.path("usedMib").asLong()),
                    g.path("healthy").asBoolean() ? "ok" : "DOWN"));
        sb.append(String.format("%n%-22s %-8s %-6s %9s %5s %9s %9s  %s%n", "JOB", "PID", "GPUS", "MEM", "CORE", "CAP/GPU", "USED", "COMMAND"));
        for (JsonNode j : ps.path("jobs")) {
            sb.append(String.format("%-22s %-8d %-6s %9s %5s %9s %9s  %s%n", j.path("job").asText(), j.path("pid").asLong(),
                    j.path("gpus").toString().replaceAll("[\\[\\]]", ""), gib(j.path("memMib").asLong()),
                    j.path("core").asInt() == 0 ? "-" : j.path("core").asInt() + "%", gib(j.path("capMibPerGpu").asLong()),
                    gib(j.path("usedMib").asLong()), j.path("command").asText()));
            for (JsonNode p : j.path("processes"))
                sb.append(String.format("  pid %-8d gpu %d %9s %s%n", p.path("pid").asLong(), p.path("gpu").asInt(), gib(p.path("usedMib").asLong()), p.path("role").asText()));
        }
        if (!ps.path("otherProcesses").isEmpty()) {
            sb.append("\nGPU processes of no job:\n");
            for (JsonNode p : ps.path("otherProcesses"))
                sb.append(String.format("  pid %-8d gpu %d %9s %s%n", p.path("pid").asLong(), p.path("gpu").asInt(), gib(p.path("usedMib").asLong()), p.path("role").asText()));
        }
        if (!ps.path("events").isEmpty()) {
            sb.append("\nRecent policer events:\n");
            for (JsonNode e : ps.path("events"))
                sb.append("  ").append(e.path("at").asText()).append(' ').append(e.path("reason").asText()).append(" job=").append(e.path("job").asText())
                        .append(" pid=").append(e.path("pid").asLong()).append(": ").append(e.path("message").asText()).append('\n');
        }
        return sb.toString();
    }

    private static String gib(long mib) { return mib < 0 ? "?" : String.format(Locale.ROOT, "%.1fG", mib / 1024.0); }
}
