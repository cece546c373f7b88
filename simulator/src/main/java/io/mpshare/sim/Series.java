package io.mpshare.sim;

/**
 * State of one run sampled every {@code stepMs} (sample-and-hold: the value at the sample time).
 *
 * @param timeMs      sample times
 * @param gpusInUse   GPUs with at least one pod
 * @param utilisation memory asked by pods / memory of the GPUs in use (0 when none is in use)
 * @param queued      pods waiting in the queue
 * @param strandedMib free memory on GPUs in use that the model cannot hand to the smallest pod
 */
public record Series(long stepMs, long[] timeMs, int[] gpusInUse, double[] utilisation, int[] queued, long[] strandedMib) {
    public int size() { return timeMs.length; }
}
