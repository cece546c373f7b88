package io.mpshare.deviceplugin.ceiling;

import io.mpshare.core.isolation.MpsLimits;
import io.mpshare.core.ledger.Allocation;
import io.mpshare.core.model.NodeInventory;
import io.mpshare.kube.node.NodeBookings;
import io.mpshare.mps.Colour;
import io.mpshare.mps.MpsException;
import io.mpshare.mps.SupervisorStatus;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import java.util.logging.Logger;

/**
 * Keeps the server ceiling of every GPU, on every colour's supervisor, equal to {@link MpsLimits#ceilingPerGpu} of this
 * node's bookings: the largest client cap booked on the GPU, rounded up to whole GiB, or 1 GiB where nothing is booked.
 *
 * <h2>Implementation notes</h2>
 * <b>Bookings.</b> The node's checked bookings ({@link NodeBookings}: demand from each pod's own resources, never from
 * the numbers in its annotation): every pod bound here with a booking counts from the moment the informer sees it —
 * before kubelet's Allocate, so the ceiling is raised before the container can start — until it is Succeeded, Failed or
 * gone. A terminating pod still counts: its containers may still run. A round is requested whenever that set changes.
 *
 * <p><b>Rounds.</b> {@link #reconcile} reads each colour's status and sets only the devices whose ceiling differs
 * from the plan: a GPU's ceiling is raised for a new booking and lowered after a release (a lowered ceiling applies to
 * clients that connect afterwards; running ones keep theirs, FACTS.md). A round runs after every pod change
 * (coalesced) and every {@code period}; the periodic round is what repairs a supervisor that restarted (it starts with
 * the ceilings of its last run, from its status file), a colour that appears during blue/green, or a daemon that did not
 * answer. The supervisor itself keeps the ceilings it was given and re-applies them on each daemon start, so a daemon
 * restart needs no round.
 *
 * <p><b>Failures.</b> A colour whose supervisor does not answer is skipped this round (a colour that is not deployed
 * is normal). A ceiling the supervisor stored but could not apply yet (daemon down: 503) shows in its status and is
 * not sent again. A ceiling the daemon refused (409) is logged once per value and tried again next round.
 *
 * <p><b>Concurrency.</b> Rounds run on the executor given to {@link #start} (one thread: rounds never overlap); the
 * listener method only requests a round.
 */
public final class CeilingController implements NodeBookings.Listener, AutoCloseable {
    private static final Logger LOG = Logger.getLogger(CeilingController.class.getName());

    /** What one round did: the plan, the changes sent per colour ({@code "0=8192"}), and colours skipped with why. */
    public record Round(Map<Integer, Long> desired, Map<String, List<String>> changed, Map<String, String> skipped) {
        public Round {
            desired = Map.copyOf(desired);
            changed = Map.copyOf(changed);
            skipped = Map.copyOf(skipped);
        }
    }

    /** How often a round runs without a pod change: repairs a restarted supervisor or a new colour within this. */
    public static final Duration DEFAULT_PERIOD = Duration.ofSeconds(2);
    /** One supervisor call's deadline (a ceiling is applied within a few control commands; 10 s means a sick daemon). */
    public static final Duration SOCKET_TIMEOUT = Duration.ofSeconds(10);

    private final NodeInventory inventory;
    private final Supplier<Collection<Allocation>> booked;
    private final Map<String, CeilingTarget> colours;
    private final Set<String> warned = ConcurrentHashMap.newKeySet();
    private final Map<String, String> colourState = new ConcurrentHashMap<>();
    private final AtomicInteger wanted = new AtomicInteger();
    private volatile ScheduledExecutorService exec;

    /**
     * @param booked  the node's bookings now ({@link NodeBookings#booked}; add this controller to its listeners)
     * @param colours each colour's supervisor, in the order rounds visit them (blue, green)
     */
    public CeilingController(NodeInventory inventory, Supplier<Collection<Allocation>> booked, Map<String, CeilingTarget> colours) {
        this.inventory = inventory;
        this.booked = booked;
        this.colours = new LinkedHashMap<>(colours);
    }

    @Override public void bookingsChanged() { requestRound(); }

    /** The plan for the bookings seen so far. */
    public Map<Integer, Long> desired() {
        return MpsLimits.ceilingPerGpu(booked.get(), inventory.gpus().stream().map(g -> g.index()).toList());
    }

    /** One round on the calling thread (tests; production calls it from the executor). */
    public synchronized Round reconcile() {
        Map<Integer, Long> want = desired();
        Map<String, List<String>> changed = new LinkedHashMap<>();
        Map<String, String> skipped = new LinkedHashMap<>();
        for (Map.Entry<String, CeilingTarget> c : colours.entrySet()) {
            SupervisorStatus s;
            try {
                s = c.getValue().status();
            } catch (MpsException e) {
                skipped.put(c.getKey(), e.getMessage());
                noteState(c.getKey(), "unreachable: " + e.getMessage());
                continue;
            }
            noteState(c.getKey(), "reachable");
            List<String> sent = new ArrayList<>();
            want.forEach((device, mib) -> {
                if (mib.equals(s.ceilingsMib().get(device))) return;
                try {
                    c.getValue().setCeiling(device, mib);
                    sent.add(device + "=" + mib);
                } catch (MpsException e) {
                    if (e.reason() == MpsException.Reason.TIMEOUT) sent.add(device + "=" + mib + " (stored, pending)");
                    else if (warned.add(c.getKey() + "/" + device + "/" + mib))
                        LOG.warning("the " + c.getKey() + " MPS supervisor refused the ceiling " + mib + " MiB for GPU " + device + ": " + e.getMessage());
                }
            });
            if (!sent.isEmpty()) {
                changed.put(c.getKey(), List.copyOf(sent));
                LOG.info(() -> "MPS server ceilings on " + c.getKey() + ": " + sent + " MiB (bookings: " + booked.get().size() + " pod(s))");
            }
        }
        return new Round(want, changed, skipped);
    }

    private void noteState(String colour, String state) {
        String before = colourState.put(colour, state);
        if (state.equals(before)) return;
        if (state.equals("reachable")) LOG.info("ceilings: the " + colour + " MPS supervisor answers");
        else LOG.info("ceilings: the " + colour + " MPS supervisor is " + state + " (skipped until it answers)");
    }

    /**
     * Rounds on {@code exec} after each pod change and every {@code period}. Requests made while a round runs are
     * folded into one more round, so the controller holds at most one of {@code exec}'s threads at a time.
     */
    public void start(ScheduledExecutorService exec, Duration period) {
        this.exec = exec;
        exec.scheduleWithFixedDelay(this::requestRound, 0, period.toMillis(), TimeUnit.MILLISECONDS);
    }

    private void requestRound() {
        ScheduledExecutorService e = exec;
        if (e == null || wanted.getAndIncrement() > 0) return; // a round is queued or running: it runs once more
        try {
            e.execute(this::drain);
        } catch (RejectedExecutionException ignored) {
            wanted.set(0); // shutting down
        }
    }

    private void drain() {
        int seen;
        do {
            seen = wanted.get();
            safeRound();
        } while (wanted.addAndGet(-seen) > 0);
    }

    private void safeRound() {
        try {
            reconcile();
        } catch (RuntimeException e) {
            LOG.warning("ceiling round failed: " + e);
        }
    }

    /** Production targets: each colour's supervisor socket under {@code runDir}. */
    public static Map<String, CeilingTarget> socketTargets(Path runDir, Duration timeout) {
        Map<String, CeilingTarget> out = new LinkedHashMap<>();
        for (Colour c : Colour.values()) out.put(c.id(), CeilingTarget.overSocket(c, runDir, timeout));
        return out;
    }

    @Override public void close() { exec = null; }
}
