package io.mpshare.upgrade.plan;

import io.mpshare.core.Names;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * What the plan decides from: one read of the node, taken at {@code now}.
 *
 * @param activeColour the Node's {@code mpshare.io/mps-active}, or null when it names none (then blue is active)
 * @param templates    colour → the container images of its MPS DaemonSet's pod template, for the colours whose
 *                     DaemonSet selects this node (with OnDelete, what a recreated pod will run)
 * @param daemons      the MPS daemon pods on the node (any colour)
 * @param clients      the GPU pods on the node started as MPS clients, not finished
 */
public record NodeSnapshot(String node, String activeColour, boolean unschedulable, Optional<UpgradeState> state,
                           Map<String, String> templates, List<DaemonPod> daemons, List<Client> clients, Instant now) {
    public NodeSnapshot {
        templates = Map.copyOf(templates);
        daemons = List.copyOf(daemons);
        clients = List.copyOf(clients);
    }

    /** The colours that have an MPS DaemonSet selecting this node. */
    public Set<String> daemonSets() { return templates.keySet(); }

    /** The colour that receives new clients. */
    public String active() { return activeColour == null || activeColour.isBlank() ? Names.MPS_COLOUR_DEFAULT : activeColour; }

    /** The daemon pod of {@code colour} on this node that is not being deleted, else any (terminating) one. */
    public Optional<DaemonPod> daemon(String colour) {
        DaemonPod terminating = null;
        for (DaemonPod d : daemons) {
            if (!d.colour().equals(colour)) continue;
            if (!d.terminating()) return Optional.of(d);
            terminating = d;
        }
        return Optional.ofNullable(terminating);
    }

    /**
     * Clients that may use {@code colour}. A client whose colour was not recorded is counted as a client of
     * {@code unrecordedAs}: the colour that was active before the switch (the device plugin always gives the active
     * colour, and only {@code upgrade-node} changes it).
     */
    public List<Client> clientsOf(String colour, String unrecordedAs) {
        return clients.stream().filter(c -> c.colours().isEmpty() ? colour.equals(unrecordedAs) : c.colours().contains(colour)).toList();
    }

    /** The other colour. */
    public static String other(String colour) {
        return Names.MPS_COLOUR_BLUE.equals(colour) ? Names.MPS_COLOUR_GREEN : Names.MPS_COLOUR_BLUE;
    }
}
