/**
 * Detecting that an MPS server faulted (one client's fatal GPU error takes every client of that server down and the
 * server refuses new clients until they have all exited): detectors ({@link io.mpshare.mps.fault.FaultSource}: the
 * domains' logs, NVML Xid events) report {@link io.mpshare.mps.fault.FaultSignal}s, and
 * {@link io.mpshare.mps.fault.FaultJudge} decides which domain faulted. Pluggable so the GPU suite can tell which
 * detector is first and reliable.
 */
package io.mpshare.mps.fault;
