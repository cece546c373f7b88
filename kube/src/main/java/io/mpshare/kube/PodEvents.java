package io.mpshare.kube;

/** Told about every change a pod informer sees, on the informer's thread: keep it short, never block. */
public interface PodEvents {
    /** The pod was added, or changed (the first list arrives as adds). */
    void upserted(KubePod pod);

    /** The pod was deleted (its last state as the informer knew it). */
    void deleted(KubePod pod);
}
