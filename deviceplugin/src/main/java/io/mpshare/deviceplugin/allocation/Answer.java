package io.mpshare.deviceplugin.allocation;

import io.mpshare.core.ledger.Allocation;
import io.mpshare.core.model.PodKey;

import java.time.Instant;

/** What one Allocate call answered: for which pod and container we took it, and with which allocation. */
public record Answer(PodKey pod, String uid, String container, Allocation allocation, Instant at) {}
