package io.mpshare.scheduler.http;

import io.mpshare.kube.PodFacts;

import java.util.List;
import java.util.Map;

/**
 * kube-scheduler's {@code ExtenderArgs}, reduced to what the extender reads.
 *
 * @param pod       the pod's facts, or null when the request had no Pod
 * @param nodeNames candidate node names (from {@code NodeNames}, or the names of {@code Nodes.items})
 * @param rawNodes  when the request carried full {@code Nodes} (nodeCacheCapable false): each node's JSON
 *                  by name, echoed back for the nodes that fit; null otherwise
 * @param rawNames  NodeNames as positions in the request body when it was read from bytes and no name
 *                  needed decoding ({@code nodeNames} then builds each String on demand); null otherwise
 * @param prefers   the pod states a preference kube-scheduler's scoring weighs: a preferred node affinity, pod affinity
 *                  or anti-affinity term, or a topology spread constraint with {@code whenUnsatisfiable: ScheduleAnyway}
 */
public record ExtenderArgs(PodFacts pod, List<String> nodeNames, Map<String, String> rawNodes, RawNames rawNames, boolean prefers) {}
