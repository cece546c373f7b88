package io.mpshare.policing;

/**
 * Evicts a pod. The device plugin deletes it with a precondition (not the Eviction API: its admission
 * policy could not tell the pod's node; docs/decisions/node-agent-least-privilege.md), so it never answers
 * {@link Result#BLOCKED}; an implementation that honours disruption budgets would. Host mode stops the job.
 * Called on the policer's thread; should time out within a few hundred milliseconds.
 */
@FunctionalInterface
public interface Evictor {
    enum Result {
        /** Eviction accepted. */
        EVICTED,
        /** Refused for now (a PodDisruptionBudget): the policer tries again after {@code retryAfter}. */
        BLOCKED,
        /** The pod is already gone. */
        GONE,
        /** Any other failure: tried again next cycle. */
        FAILED
    }

    Result evict(String podUid, String reason);

    /** For deployments that never evict: every call fails (the policy should not be {@code evict} then). */
    static Evictor unsupported() { return (uid, reason) -> Result.FAILED; }
}
