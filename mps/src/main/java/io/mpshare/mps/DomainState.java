package io.mpshare.mps;

/**
 * Where one domain's daemon stands, as {@code GET /domains/{id}} reports it.
 * <ul>
 *   <li>{@code STARTING}: launched (or adopted after the supervisor's restart), not yet answering with every setting applied;
 *       also a running daemon whose second health read in a row timed out, or whose new ceiling is being applied (one
 *       timed-out read keeps it SERVING);</li>
 *   <li>{@code SERVING}: answers, ceiling and thread share applied to the default and to every running server;</li>
 *   <li>{@code FAULTED}: one of its servers faulted; every client of that server was killed and new clients are refused
 *       until each of them has exited (measured MPS behaviour): give this domain no new pod until it is SERVING again;</li>
 *   <li>{@code STALLED}: the daemon stopped answering while it may have clients (its {@code control} socket held):
 *       never killed for it; {@code stalledBy} names who holds connections; SERVING again when it answers;</li>
 *   <li>{@code DRAINING}: deleted, waiting for its last client to leave before {@code quit};</li>
 *   <li>{@code DOWN}: its daemon exited and a restart is scheduled (the domain's clients died with it).</li>
 * </ul>
 */
public enum DomainState { STARTING, SERVING, FAULTED, STALLED, DRAINING, DOWN }
