package io.mpshare.deviceplugin.domains;

import io.mpshare.core.isolation.FaultDomains.Kind;
import io.mpshare.mps.Colour;
import io.mpshare.mps.DomainKind;
import io.mpshare.mps.DomainSpec;
import io.mpshare.mps.DomainStatus;
import io.mpshare.mps.MpsException;
import io.mpshare.mps.SupervisorStatusClient;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.List;

/**
 * A colour's supervisor over its domain API ({@link SupervisorStatusClient}: {@code GET /domains},
 * {@code PUT}/{@code DELETE /domains/{id}} on {@code <run>/<colour>/supervisor.sock}), read into {@link DomainReport}s.
 * A field the supervisor fills in a form this agent cannot read (a time, a state) is read as absent or UNKNOWN, never
 * guessed.
 */
public final class SupervisorDomains implements DomainSupervisor {
    /** Bounds one call: a PUT of a new domain waits up to 2 s on the supervisor for its daemon's first answer. */
    public static final Duration TIMEOUT = Duration.ofSeconds(5);

    private final SupervisorStatusClient client;

    public SupervisorDomains(SupervisorStatusClient client) { this.client = client; }

    /** The supervisor of {@code colour} under {@code runDir}, over its unix socket. */
    public static DomainSupervisor overSocket(String colour, Path runDir, Duration timeout) {
        return new SupervisorDomains(SupervisorStatusClient.forColourSocket(Colour.parse(colour), runDir, timeout));
    }

    @Override public List<DomainReport> domains() { return client.domains().stream().map(SupervisorDomains::report).toList(); }

    @Override public DomainReport put(String id, DomainAsk ask) {
        DomainSpec spec;
        try {
            spec = new DomainSpec(ask.gpu(), kind(ask.kind()), ask.clientUid(), ask.ceilingMib(), ask.threadPercent());
        } catch (IllegalArgumentException e) {
            throw new MpsException(MpsException.Reason.OTHER, "domain " + id + " cannot be asked: " + e.getMessage());
        }
        return report(client.putDomain(id, spec));
    }

    @Override public void delete(String id) { client.deleteDomain(id); }

    static DomainKind kind(Kind k) { return DomainKind.valueOf(k.name()); }

    static DomainReport report(DomainStatus s) {
        Kind kind = s.kind() == null ? null : Kind.valueOf(s.kind().name());
        DomainReport.State state = s.state() == null ? DomainReport.State.UNKNOWN : DomainReport.State.parse(s.state().name());
        DomainReport.Fault last = s.lastFault() == null ? null
                : new DomainReport.Fault(instant(s.lastFault().at()), s.lastFault().source(), s.lastFault().clients());
        List<DomainReport.Holder> holders = s.stalledBy().stream()
                .map(h -> new DomainReport.Holder(h.pid(), h.uid(), h.connections(), h.command())).toList();
        return new DomainReport(s.id(), s.gpu(), kind, state, s.pipeDir(), s.ceilingMiB(), s.activeThreadPercentage(), s.faults(), last, holders);
    }

    private static Instant instant(String text) {
        if (text == null) return null;
        try {
            return Instant.parse(text);
        } catch (DateTimeParseException e) {
            return null;
        }
    }
}
