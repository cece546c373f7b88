/**
 * {@code mpshare simulate}: a discrete-event simulation that runs the real core (ledger, placement
 * engine, policies) on a simulated cluster and workload, and compares ways of sharing GPUs.
 * {@link io.mpshare.sim.Simulation} is the entry point; {@code report} turns its result into text and HTML.
 */
package io.mpshare.sim;
