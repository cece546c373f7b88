/**
 * Placement policies: pure functions from a node snapshot and a demand to {@link io.mpshare.core.policy.Evaluation}.
 * {@link io.mpshare.core.policy.PlacementEngine} runs one over many nodes for filter, prioritize and bind.
 */
package io.mpshare.core.policy;
