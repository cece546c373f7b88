package io.mpshare.sim;

/** Told how far each run has got; called from the thread that runs it, about a hundred times per run. */
@FunctionalInterface
public interface Progress {
    Progress NONE = (run, done, total) -> { };

    /** @param run which run ("binpack", "binpack (elastic)"); @param done events processed; @param total events expected */
    void update(String run, long done, long total);
}
