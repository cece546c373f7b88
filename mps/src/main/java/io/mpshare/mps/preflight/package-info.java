/**
 * One node agent per node resource: before an agent changes anything (publishes, removes or serves a socket, writes a
 * file), {@link io.mpshare.mps.preflight.Preflight} takes the agent's lock file and checks that none of its sockets
 * answers and none of its ports is taken. When something is, it refuses with one line that names what runs, which
 * process holds what ({@link io.mpshare.mps.preflight.ProcTable} reads that from {@code /proc}) and what to do.
 */
package io.mpshare.mps.preflight;
