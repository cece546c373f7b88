package io.mpshare.upgrade.kube;

import io.mpshare.upgrade.plan.NodeSnapshot;
import io.mpshare.upgrade.plan.Outline;
import io.mpshare.upgrade.plan.Step;
import io.mpshare.upgrade.plan.UpgradeOptions;
import io.mpshare.upgrade.plan.UpgradePlan;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.function.Consumer;

/**
 * Runs one node's upgrade: snapshot → {@link UpgradePlan#next} → act, until the plan finishes, is blocked or times out.
 * Progress lines go to {@code out} (a repeated wait is printed once).
 */
public final class NodeUpgrader {
    /** How a run ended; {@link #exitCode} for the command line (1 and 2 are every subcommand's: error, usage; docs/cli.md). */
    public enum Outcome {
        DONE(0), BLOCKED(3), TIMED_OUT(4);
        public final int exitCode;

        Outcome(int exitCode) { this.exitCode = exitCode; }
    }

    /** @param maxWait {@code --max-wait}; @param poll time between snapshots while waiting */
    public record Settings(Duration maxWait, boolean drain, Duration settle, Duration poll) {
        public Settings {
            if (maxWait.isNegative() || poll.isNegative() || poll.isZero()) throw new IllegalArgumentException("--max-wait >= 0 and a poll > 0 needed");
        }

        UpgradeOptions options(Instant start) { return new UpgradeOptions(start.plus(maxWait), maxWait, drain, settle); }
    }

    private final KubeNode kube;
    private final InstantSource clock;
    private final Sleeper sleeper;

    public NodeUpgrader(KubeNode kube, InstantSource clock, Sleeper sleeper) {
        this.kube = kube;
        this.clock = clock;
        this.sleeper = sleeper;
    }

    public Outcome run(String node, Settings settings, Consumer<String> out) throws InterruptedException {
        UpgradePlan plan = new UpgradePlan(settings.options(clock.instant()));
        String lastWait = null;
        while (true) {
            NodeSnapshot snap = kube.snapshot(node, clock.instant());
            Step step = plan.next(snap);
            if (step instanceof Step.Wait w) {
                if (!w.reason().equals(lastWait)) out.accept(node + ": " + step.describe());
                lastWait = w.reason();
                sleeper.sleep(settings.poll());
                continue;
            }
            lastWait = null;
            out.accept(node + ": " + step.describe());
            switch (step) {
                case Step.Blocked b -> { return Outcome.BLOCKED; }
                case Step.TimedOut t -> { return Outcome.TIMED_OUT; }
                default -> {
                    for (String note : kube.apply(node, step)) out.accept(node + ": " + note);
                    if (step instanceof Step.Finish) return Outcome.DONE;
                    if (step instanceof Step.Evict) sleeper.sleep(settings.poll());
                }
            }
        }
    }

    /** {@code --dry-run}: where the node stands and what a run would do; nothing is written. */
    public List<String> dryRun(String node, Settings settings) {
        Instant now = clock.instant();
        return Outline.of(kube.snapshot(node, now), new UpgradePlan(settings.options(now)), settings.drain(), settings.maxWait().toString());
    }
}
