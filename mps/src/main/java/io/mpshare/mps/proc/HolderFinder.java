package io.mpshare.mps.proc;

import io.mpshare.mps.DomainStatus.Holder;

import java.nio.file.Path;
import java.util.List;
import java.util.Set;

/** Who holds connections to a control daemon's {@code control} socket ({@link ControlSocketHolders} reads {@code /proc}). */
@FunctionalInterface
public interface HolderFinder {
    /** The holders of connections to {@code controlSocket}, served by {@code daemonPid}; {@code exclude} (its servers) left out; most first. */
    List<Holder> find(Path controlSocket, long daemonPid, Set<Long> exclude);
}
