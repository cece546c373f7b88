/**
 * What the kernel says about processes and unix sockets, read from {@code /proc} (any root, so tests read fake trees):
 * {@link io.mpshare.mps.proc.Processes} (alive, children, UID, SIGKILL) and
 * {@link io.mpshare.mps.proc.ControlSocketHolders} (who holds connections to a daemon's {@code control} socket, from
 * {@code /proc/net/unix} and {@code /proc/<pid>/fd}).
 */
package io.mpshare.mps.proc;
