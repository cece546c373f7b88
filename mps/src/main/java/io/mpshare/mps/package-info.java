/**
 * The MPS control daemon: the control language ({@link io.mpshare.mps.MpsControl}, spoken by
 * {@link io.mpshare.mps.ProcessMpsControl}), and {@link io.mpshare.mps.MpsSupervisor}, which keeps one
 * daemon per colour running with its settings applied and reports on it (status JSON, readiness marker,
 * metrics) for the device plugin ({@link io.mpshare.mps.SupervisorStatusClient}).
 */
package io.mpshare.mps;
