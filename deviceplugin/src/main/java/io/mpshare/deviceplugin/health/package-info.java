/**
 * Device health: the MPS control daemon must answer (else new CUDA processes would run without any cap, FACTS.md)
 * and a GPU must have had no critical Xid recently. {@link io.mpshare.deviceplugin.health.HealthMonitor} polls both
 * and tells listeners when the state changes.
 */
package io.mpshare.deviceplugin.health;
