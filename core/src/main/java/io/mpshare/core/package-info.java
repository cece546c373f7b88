/**
 * mpshare's pure domain: names, units, and the entry points to the model, ledger and policies.
 * Depends on the JDK alone; adapters (HTTP, gRPC, Kubernetes, NVML) translate into these types.
 */
package io.mpshare.core;
