package io.mpshare.upgrade.kube;

import java.time.Duration;

/** How the upgrader waits between polls; tests pass one that advances a fake clock and moves the world along. */
@FunctionalInterface
public interface Sleeper {
    void sleep(Duration d) throws InterruptedException;

    Sleeper SYSTEM = d -> Thread.sleep(d);
}
