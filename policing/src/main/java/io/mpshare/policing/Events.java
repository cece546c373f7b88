package io.mpshare.policing;

import io.mpshare.core.model.PodKey;
import io.mpshare.policing.Finding.OverLimit;
import io.mpshare.policing.Finding.Rogue;
import io.mpshare.policing.Finding.Unknown;
import io.mpshare.policing.PolicerEvent.Kind;
import io.mpshare.policing.Snapshot.ProcessSample;

import java.time.Instant;
import java.util.Optional;
import java.util.stream.Collectors;

/** Words for events: one sentence a person can act on, naming pod, GPU, PIDs and figures. */
final class Events {
    private Events() {}

    static PolicerEvent of(Instant at, Finding f) {
        return switch (f) {
            case OverLimit o -> new PolicerEvent(at, Kind.OVER_LIMIT, o.podUid(), Optional.of(o.pod()), o.gpu(), 0, "",
                    "pod " + o.pod() + " uses " + o.usedMib() + " MiB on GPU " + o.gpu() + ", over the " + o.allowedMib()
                    + " MiB allowed for its " + o.clients().size() + " MPS client(s); largest first: "
                    + o.offenders().stream().map(Events::describe).collect(Collectors.joining(", ")));
            case Rogue r -> new PolicerEvent(at, Kind.ROGUE_PROCESS, r.podUid(), r.pod(), r.gpu(), r.process().pid(), r.process().container(),
                    "process " + describe(r.process()) + " of pod " + name(r.podUid(), r.pod()) + " on GPU " + r.gpu() + " "
                    + (r.why() == Finding.Why.NOT_MPS_CLIENT
                        ? "is not an MPS client, so it runs without any memory cap"
                        : "is where the pod has no allocation (the pod bypassed the scheduler)"));
            case Unknown u -> new PolicerEvent(at, Kind.UNKNOWN_PROCESS, "", Optional.empty(), u.gpu(), u.process().pid(), "",
                    "process " + u.process().pid() + " (" + u.process().role().name().toLowerCase() + ") uses " + u.process().usedMib()
                    + " MiB on shared GPU " + u.gpu() + " and belongs to no pod; reported only");
        };
    }

    static PolicerEvent acted(Instant at, Finding f, long pid, Kind kind, String what) {
        PolicerEvent base = of(at, f);
        return new PolicerEvent(at, kind, base.podUid(), base.pod(), base.gpu(), pid == 0 ? base.pid() : pid, base.container(),
                what + " (" + f.reason() + " on GPU " + f.gpu() + ")");
    }

    private static String describe(ProcessSample p) {
        return "pid " + p.pid() + " (" + p.usedMib() + " MiB" + (p.container().isEmpty() ? "" : ", container " + p.container()) + ")";
    }

    private static String name(String uid, Optional<PodKey> pod) {
        return pod.map(PodKey::toString).orElse("uid " + uid);
    }
}
