package io.mpshare.upgrade.plan;

import io.mpshare.core.model.PodKey;
import io.mpshare.upgrade.plan.UpgradeState.Mode;
import io.mpshare.upgrade.plan.UpgradeState.Phase;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * The upgrade of one node's MPS daemon, as a function: snapshot in, next step out.
 *
 * <p>Implementation notes.
 * <ul>
 * <li><b>Blue/green</b> (default): the idle colour's daemon pod is deleted if it does not run its DaemonSet's current
 *     template (OnDelete recreates it with the new image), then the plan waits until it is Ready, switches the Node's
 *     active colour (the device plugin gives new containers that colour's pipe directory), and waits until no client
 *     of the old colour is left. No pod is deleted; the old daemon stays up, idle, ready for the next version.</li>
 * <li><b>Safety.</b> A daemon pod is deleted only when no client uses its colour (a restarted daemon kills its clients,
 *     FACTS.md); the active colour's pod is never deleted in blue/green mode. A client whose colour was not recorded is
 *     counted as a client of the colour active before the switch.</li>
 * <li><b>Drain</b> ({@code --drain}): after {@code deadline}, cordon, evict what is left on the old colour, uncordon.
 *     With no idle colour on the node (one DaemonSet), the seed's procedure in place: cordon, evict every client,
 *     delete the daemon pod, wait until the new one is Ready, uncordon.</li>
 * <li><b>Resuming.</b> Every decision is made from the snapshot and the progress annotation alone; a second run after an
 *     interruption (or a crash between two calls) computes the same next step.</li>
 * </ul>
 */
public final class UpgradePlan {
    private final UpgradeOptions options;

    public UpgradePlan(UpgradeOptions options) { this.options = options; }

    public Step next(NodeSnapshot s) {
        Optional<UpgradeState> st = s.state();
        if (st.isEmpty()) return begin(s);
        UpgradeState u = st.get();
        return switch (u.mode()) {
            case BLUE_GREEN -> switch (u.phase()) {
                case STARTING -> starting(s, u);
                case SWITCHED -> switched(s, u);
                case DRAINING -> draining(s, u);
                case RESTARTING -> new Step.Blocked("progress annotation says blue-green/restarting, which this version never writes: "
                        + "remove mpshare.io/upgrade-state from node " + s.node() + " and run again");
            };
            case IN_PLACE -> switch (u.phase()) {
                case DRAINING -> inPlaceDraining(s, u);
                case RESTARTING -> inPlaceRestarting(s, u);
                default -> new Step.Blocked("progress annotation says in-place/" + u.phase() + ", which this version never writes: "
                        + "remove mpshare.io/upgrade-state from node " + s.node() + " and run again");
            };
        };
    }

    private Step begin(NodeSnapshot s) {
        String from = s.active(), to = NodeSnapshot.other(from);
        Optional<DaemonPod> active = s.daemon(from);
        if (s.daemonSets().contains(to) && active.isPresent() && active.get().image().equals(s.templates().get(to)))
            return new Step.Finish(false, "nothing to upgrade: the " + to + " DaemonSet's template runs " + active.get().image()
                    + ", which " + from + " already runs (set the new image on " + to + " with helm upgrade first)");
        if (!s.daemonSets().contains(to) && options.drain() && active.isPresent() && active.get().current() && active.get().ready())
            return new Step.Finish(false, "nothing to upgrade: " + from + " already runs its DaemonSet's template " + active.get().image());
        if (s.daemonSets().contains(to))
            return new Step.Record(new UpgradeState(Mode.BLUE_GREEN, Phase.STARTING, from, to, s.now(), false),
                    "begin blue/green: " + from + " is active, start " + to + " with its DaemonSet's current template");
        if (!options.drain())
            return new Step.Blocked("no " + to + " MPS DaemonSet selects node " + s.node() + ", so there is no idle daemon to switch to: "
                    + "enable mpsControl.colours." + to + " in the chart, or use --drain to upgrade " + from + " in place (evicts its clients)");
        return new Step.Record(new UpgradeState(Mode.IN_PLACE, Phase.DRAINING, from, from, s.now(), false),
                "begin in place (no " + to + " DaemonSet): cordon, evict the clients of " + from + ", restart its daemon, uncordon");
    }

    private Step starting(NodeSnapshot s, UpgradeState u) {
        if (s.active().equals(u.to())) return new Step.Record(u.in(Phase.SWITCHED, s.now()), u.to() + " is already active");
        List<Client> onIdle = s.clientsOf(u.to(), u.from());
        Optional<DaemonPod> pod = s.daemon(u.to());
        if (pod.isEmpty())
            return waitOrTimeOut(s, "no " + u.to() + " MPS daemon pod on node " + s.node() + " yet (its DaemonSet creates one)");
        DaemonPod d = pod.get();
        if (d.terminating()) return waitOrTimeOut(s, u.to() + " daemon pod " + d + " is terminating; its DaemonSet will recreate it");
        if (!d.current()) {
            if (!onIdle.isEmpty())
                return new Step.Blocked(u.to() + " is not active but still has " + onIdle.size() + " client(s) (" + names(onIdle)
                        + "); restarting its daemon would kill them. Run again when they have finished");
            return new Step.RestartDaemon(d, "it runs " + d.image() + ", not its DaemonSet's current template");
        }
        if (!d.ready()) return waitOrTimeOut(s, u.to() + " daemon pod " + d + " is not Ready yet");
        return new Step.Switch(u.from(), u.to(), u.in(Phase.SWITCHED, s.now()));
    }

    private Step switched(NodeSnapshot s, UpgradeState u) {
        if (!s.active().equals(u.to()))
            return new Step.Blocked("node " + s.node() + " names " + s.active() + " active, but this upgrade switched it to " + u.to()
                    + ": someone changed mpshare.io/mps-active; remove mpshare.io/upgrade-state and run again");
        List<Client> old = s.clientsOf(u.from(), u.from());
        if (old.isEmpty()) {
            if (s.now().isBefore(u.since().plus(options.settle())))
                return new Step.Wait("no client left on " + u.from() + "; settling until " + u.since().plus(options.settle()));
            return new Step.Finish(false, u.from() + " has no client left and stays up idle; " + u.to() + " serves new clients");
        }
        String reason = old.size() + " client(s) still on " + u.from() + ": " + names(old);
        if (s.now().isAfter(options.deadline())) {
            if (options.drain()) return new Step.Record(u.in(Phase.DRAINING, s.now()), "--max-wait passed and --drain: " + reason);
            return new Step.TimedOut(reason + ". " + u.to() + " is active and serves new clients; run again to keep waiting "
                    + "(progress is kept on the node), or with --drain to evict them");
        }
        return new Step.Wait(reason);
    }

    private Step draining(NodeSnapshot s, UpgradeState u) {
        if (!u.cordoned() && !s.unschedulable()) return new Step.Cordon(u.withCordoned());
        List<Client> old = s.clientsOf(u.from(), u.from());
        if (old.isEmpty()) return new Step.Finish(u.cordoned(), "clients of " + u.from() + " evicted; " + u.to() + " serves new clients");
        return evictOrWait(s, old, u);
    }

    private Step inPlaceDraining(NodeSnapshot s, UpgradeState u) {
        if (!u.cordoned() && !s.unschedulable()) return new Step.Cordon(u.withCordoned());
        if (s.clients().isEmpty()) return new Step.Record(u.in(Phase.RESTARTING, s.now()), "no client left: restart the " + u.from() + " daemon");
        return evictOrWait(s, s.clients(), u);
    }

    private Step inPlaceRestarting(NodeSnapshot s, UpgradeState u) {
        if (!s.clients().isEmpty()) return new Step.Record(u.in(Phase.DRAINING, s.now()), "clients came back: drain again");
        Optional<DaemonPod> pod = s.daemon(u.from());
        if (pod.isEmpty()) return waitOrTimeOut(s, "no " + u.from() + " MPS daemon pod on node " + s.node() + " yet (its DaemonSet creates one)");
        DaemonPod d = pod.get();
        if (d.terminating()) return waitOrTimeOut(s, u.from() + " daemon pod " + d + " is terminating; its DaemonSet will recreate it");
        if (!d.current()) return new Step.RestartDaemon(d, "the node is drained; it runs " + d.image() + ", not its DaemonSet's current template");
        if (!d.ready()) return waitOrTimeOut(s, u.from() + " daemon pod " + d + " is not Ready yet");
        return new Step.Finish(u.cordoned(), u.from() + " daemon runs its current template and is Ready");
    }

    /** Evicts clients not yet terminating; waits for those that are. PDB refusals show up as clients still there. */
    private Step evictOrWait(NodeSnapshot s, List<Client> clients, UpgradeState u) {
        List<PodKey> evict = clients.stream().filter(c -> !c.terminating()).map(Client::pod).toList();
        String reason = clients.size() + " client(s) to evict: " + names(clients);
        Instant drainDeadline = u.since().plus(options.drainWait());
        if (drainDeadline.isBefore(options.deadline())) drainDeadline = options.deadline();
        if (s.now().isAfter(drainDeadline))
            return new Step.TimedOut(reason + " (evictions refused by PodDisruptionBudgets, or pods slow to stop). The node stays "
                    + (u.cordoned() ? "cordoned" : "as it was") + "; run again with --drain to go on");
        if (!evict.isEmpty()) return new Step.Evict(evict);
        return new Step.Wait(reason);
    }

    private Step waitOrTimeOut(NodeSnapshot s, String reason) {
        if (s.now().isAfter(options.deadline())) return new Step.TimedOut(reason + "; run again to resume (progress is kept on the node)");
        return new Step.Wait(reason);
    }

    static String names(List<Client> cs) { return Outline.names(cs.stream().map(Client::pod).toList()); }
}
