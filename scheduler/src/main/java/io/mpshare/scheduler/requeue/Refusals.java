package io.mpshare.scheduler.requeue;

import io.mpshare.core.model.PodKey;
import io.mpshare.scheduler.cycle.Ask;

import java.util.Collection;

/** What a filter tells the requeue of its answer ({@link Requeue}); {@link #NONE} when nothing wakes refused pods. */
public interface Refusals {
    /** Read before the filter looks at the ledger. */
    long sequence();

    /** The filter kept {@code ask}'s pod on no node and refused {@code nodes}; {@code seq} as read before it judged. */
    void refused(Ask.Gpu ask, Collection<String> nodes, long seq);

    /** The filter kept a node for the pod. */
    void kept(PodKey pod);

    Refusals NONE = new Refusals() {
        @Override public long sequence() { return 0; }
        @Override public void refused(Ask.Gpu ask, Collection<String> nodes, long seq) { }
        @Override public void kept(PodKey pod) { }
    };
}
