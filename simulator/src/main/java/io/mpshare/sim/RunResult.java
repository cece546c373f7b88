package io.mpshare.sim;

import java.util.Map;

/**
 * What one model did on one cluster. Times in milliseconds of simulated time; memory in MiB.
 *
 * @param elastic           true for the run that adds nodes whenever a pod fits nowhere (no pod waits)
 * @param nodes             nodes of the cluster at the end (for an elastic run: how many it grew to)
 * @param nodesUsed         nodes that held a pod at some time (the elastic run: all of them)
 * @param elasticEquivalent a fixed run in which no pod waited and nodes were opened exactly as the elastic run
 *                          would open them: the elastic run would repeat every decision, so it need not run
 * @param placed            pods that ran
 * @param rejected          pods that can never run on this cluster's nodes (or are invalid); see {@code rejectReasons}
 * @param peakGpusInUse     most GPUs with at least one pod at any moment
 * @param meanGpusInUse     time-weighted mean of GPUs in use, from the first arrival to the last departure
 * @param memUtilisation    memory pods asked / memory of the GPUs in use, integrated over time
 * @param reserveShare      context reserve charged / memory of the GPUs in use, integrated over time
 * @param strandedShare     stranded free memory / memory of the GPUs in use, integrated over time
 * @param meanStrandedMib   time-weighted mean stranded free memory
 * @param waitsMs           each placed pod's pending time (placement - arrival), sorted ascending
 * @param endMs             time of the last event
 * @param meanDaemonsPerGpu MPS daemons (fault domains with pods) per GPU in use, time-weighted: 1 when every GPU
 *                          serves one domain; more where tenants share GPUs and their servers time-slice
 * @param peakDaemonsPerGpu most daemons on one GPU at any moment
 */
public record RunResult(String modelId, String label, boolean elastic, int nodes, int nodesUsed, boolean elasticEquivalent, int gpusPerNode,
                        int pods, int placed, int rejected, Map<String, Integer> rejectReasons,
                        int peakGpusInUse, double meanGpusInUse, double memUtilisation, double reserveShare,
                        double strandedShare, double meanStrandedMib, long[] waitsMs, long endMs, Series series,
                        double meanDaemonsPerGpu, int peakDaemonsPerGpu) {

    public int gpus() { return nodes * gpusPerNode; }

    /** This fixed run standing for the elastic run it is equivalent to: the cluster is the nodes it used. */
    public RunResult asElastic() {
        if (!elasticEquivalent) throw new IllegalStateException(label + ": this run is not equivalent to an elastic one");
        return new RunResult(modelId, label, true, nodesUsed, nodesUsed, false, gpusPerNode, pods, placed, rejected, rejectReasons,
                peakGpusInUse, meanGpusInUse, memUtilisation, reserveShare, strandedShare, meanStrandedMib, waitsMs, endMs, series,
                meanDaemonsPerGpu, peakDaemonsPerGpu);
    }

    /** Pods that waited at all. */
    public int waited() {
        int n = 0;
        for (long w : waitsMs) if (w > 0) n++;
        return n;
    }

    public double meanWaitMs() {
        if (waitsMs.length == 0) return 0;
        double s = 0;
        for (long w : waitsMs) s += w;
        return s / waitsMs.length;
    }

    /** Pending-time quantile, {@code q} in [0, 1], nearest rank. */
    public long waitQuantileMs(double q) {
        if (waitsMs.length == 0) return 0;
        int i = (int) Math.ceil(q * waitsMs.length) - 1;
        return waitsMs[Math.max(0, Math.min(waitsMs.length - 1, i))];
    }

    public long maxWaitMs() { return waitsMs.length == 0 ? 0 : waitsMs[waitsMs.length - 1]; }
}
