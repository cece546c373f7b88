/**
 * MPS fault domains on the node side (docs/device-plugin.md, "Fault domains"): each booked pod's domain
 * ({@link io.mpshare.core.isolation.FaultDomains}, fixed for the pod's life), the domains the bookings ask of each
 * colour's supervisor with their ceiling and thread share ({@link io.mpshare.deviceplugin.domains.DomainPlan}, pure),
 * kept in step over the supervisor's API and read back for Allocate
 * ({@link io.mpshare.deviceplugin.domains.DomainController}), and what a domain's fault or stall tells the pods, the
 * metrics, the suspects and the Node ({@link io.mpshare.deviceplugin.domains.FaultWatch}).
 */
package io.mpshare.deviceplugin.domains;
