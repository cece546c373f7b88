package io.mpshare.upgrade.plan;

/**
 * One MPS control daemon pod on the node, as the plan needs it.
 *
 * @param current     its containers run the images of its DaemonSet's template (with OnDelete, a pod made before
 *                    {@code helm upgrade} keeps the old image until it is deleted)
 * @param terminating it has a deletion timestamp
 */
public record DaemonPod(String namespace, String name, String colour, boolean ready, boolean current, boolean terminating, String image) {
    public DaemonPod {
        if (name == null || name.isBlank()) throw new IllegalArgumentException("daemon pod without a name");
        if (colour == null || colour.isBlank()) throw new IllegalArgumentException("daemon pod " + name + " without a colour");
    }

    @Override public String toString() { return namespace + "/" + name; }
}
