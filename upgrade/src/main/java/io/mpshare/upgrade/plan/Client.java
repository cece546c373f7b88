package io.mpshare.upgrade.plan;

import io.mpshare.core.model.PodKey;

import java.util.Set;

/**
 * A pod on the node that holds a shared GPU allocation and has been started as an MPS client (the device plugin
 * answered its Allocate: {@code mpshare.io/assigned=true}, or it is Running).
 *
 * @param colours     the MPS colour(s) the device plugin gave its containers ({@code mpshare.io/mps-colour});
 *                    empty when not recorded (a pod started by a device plugin that did not record it)
 * @param terminating it has a deletion timestamp (it is still a client until it is gone)
 */
public record Client(PodKey pod, Set<String> colours, boolean terminating) {
    public Client {
        colours = Set.copyOf(colours);
    }

    @Override public String toString() { return pod + (colours.isEmpty() ? " (colour not recorded)" : " " + String.join(",", colours)); }
}
