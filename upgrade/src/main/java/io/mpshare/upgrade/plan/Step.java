package io.mpshare.upgrade.plan;

import io.mpshare.core.model.PodKey;

import java.util.List;

/**
 * The one thing to do next. Each action is a single API call whose effect the next snapshot shows; a step that
 * carries an {@link UpgradeState} writes it to the Node in the same call (write-ahead: progress is on the Node
 * before, or together with, what it describes).
 */
public sealed interface Step {
    /** Human-readable, for progress lines and {@code --dry-run}. */
    String describe();

    /** Writes the progress annotation only (a new run, or a phase change with nothing else to do). */
    record Record(UpgradeState state, String why) implements Step {
        @Override public String describe() { return why; }
    }

    /** Deletes a daemon pod so that its OnDelete DaemonSet recreates it from the current template. */
    record RestartDaemon(DaemonPod pod, String why) implements Step {
        @Override public String describe() { return "delete MPS daemon pod " + pod + " (" + pod.colour() + "): " + why; }
    }

    /** Sets {@code mpshare.io/mps-active} to {@code to} and the progress, in one Node patch. */
    record Switch(String from, String to, UpgradeState state) implements Step {
        @Override public String describe() {
            return "switch mpshare.io/mps-active " + from + " -> " + to + ": new containers get the " + to + " pipe directory";
        }
    }

    /** Marks the node unschedulable and records that this run did, in one Node patch. */
    record Cordon(UpgradeState state) implements Step {
        @Override public String describe() { return "cordon the node"; }
    }

    /** Evicts these pods through the Eviction API (PodDisruptionBudgets are honoured; a refused eviction is retried). */
    record Evict(List<PodKey> pods) implements Step {
        public Evict { pods = List.copyOf(pods); }

        @Override public String describe() { return "evict " + pods.size() + " pod(s): " + Outline.names(pods); }
    }

    /** Nothing to do until the world changes. */
    record Wait(String reason) implements Step {
        @Override public String describe() { return "wait: " + reason; }
    }

    /** Finished: removes the progress annotation and, if this run cordoned the node, uncordons it (one patch). */
    record Finish(boolean uncordon, String summary) implements Step {
        @Override public String describe() { return (uncordon ? "uncordon; " : "") + "done: " + summary; }
    }

    /** Cannot go on without a person; progress is kept. */
    record Blocked(String reason) implements Step {
        @Override public String describe() { return "blocked: " + reason; }
    }

    /** {@code --max-wait} passed; progress is kept, a later run resumes. */
    record TimedOut(String reason) implements Step {
        @Override public String describe() { return "timed out: " + reason; }
    }
}
