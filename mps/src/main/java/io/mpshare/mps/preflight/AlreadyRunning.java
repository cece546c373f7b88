package io.mpshare.mps.preflight;

/** An agent refused to start because another one holds its lock, socket or port; the message is the whole answer. */
public final class AlreadyRunning extends IllegalStateException {
    private final Occupancy occupancy;

    AlreadyRunning(String message, Occupancy occupancy) {
        super(message);
        this.occupancy = occupancy;
    }

    /** What was found in use, and by whom. */
    public Occupancy occupancy() { return occupancy; }
}
