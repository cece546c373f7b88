package io.mpshare.upgrade.plan;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Progress of {@code upgrade-node} on one node, kept in the Node annotation {@code mpshare.io/upgrade-state} as
 * {@code mode=blue-green;phase=switched;from=blue;to=green;since=2026-11-30T05:00:00Z;cordoned=false}.
 *
 * <pre>
 *  blue-green:  starting ──(idle colour current and Ready; switch)──▶ switched ──(old colour has no client)──▶ done
 *                                                                        │ --max-wait passed and --drain
 *                                                                        ▼
 *                                                                     draining ──(old clients evicted; uncordon)──▶ done
 *  in-place (--drain, no idle colour: the seed's procedure):
 *               draining ──(cordon; every client evicted)──▶ restarting ──(daemon current and Ready; uncordon)──▶ done
 * </pre>
 * "done" is the annotation removed. {@code since} is when the phase began; {@code cordoned} says this run cordoned
 * the node (so it uncordons only a node it cordoned).
 */
public record UpgradeState(Mode mode, Phase phase, String from, String to, Instant since, boolean cordoned) {
    public enum Mode {
        BLUE_GREEN("blue-green"), IN_PLACE("in-place");
        final String text;

        Mode(String text) { this.text = text; }
    }

    public enum Phase {
        STARTING("starting"), SWITCHED("switched"), DRAINING("draining"), RESTARTING("restarting");
        final String text;

        Phase(String text) { this.text = text; }
    }

    public UpgradeState {
        if (mode == null || phase == null || from == null || to == null || since == null)
            throw new IllegalArgumentException("upgrade state needs mode, phase, from, to and since");
    }

    public UpgradeState in(Phase next, Instant at) { return new UpgradeState(mode, next, from, to, at, cordoned); }

    public UpgradeState withCordoned() { return new UpgradeState(mode, phase, from, to, since, true); }

    public String encode() {
        return "mode=" + mode.text + ";phase=" + phase.text + ";from=" + from + ";to=" + to + ";since=" + since + ";cordoned=" + cordoned;
    }

    /** Empty for a missing annotation; an exception with the reason for a malformed one. */
    public static Optional<UpgradeState> decode(String text) {
        if (text == null || text.isBlank()) return Optional.empty();
        Map<String, String> kv = new LinkedHashMap<>();
        for (String part : text.split(";")) {
            int eq = part.indexOf('=');
            if (eq <= 0) throw new IllegalArgumentException("malformed upgrade state \"" + text + "\": \"" + part + "\" is not key=value");
            kv.put(part.substring(0, eq).trim(), part.substring(eq + 1).trim());
        }
        try {
            return Optional.of(new UpgradeState(mode(kv.get("mode")), phase(kv.get("phase")), kv.get("from"), kv.get("to"),
                    Instant.parse(String.valueOf(kv.get("since"))), Boolean.parseBoolean(kv.get("cordoned"))));
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException("malformed upgrade state \"" + text + "\": since is not an RFC 3339 time");
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("malformed upgrade state \"" + text + "\": " + e.getMessage());
        }
    }

    private static Mode mode(String s) {
        for (Mode m : Mode.values()) if (m.text.equals(s)) return m;
        throw new IllegalArgumentException("unknown mode " + s);
    }

    private static Phase phase(String s) {
        for (Phase p : Phase.values()) if (p.text.equals(s)) return p;
        throw new IllegalArgumentException("unknown phase " + s);
    }
}
