package io.mpshare.sim;

import java.util.Arrays;

/**
 * The simulation's events in time order: pod arrivals (given up front, sorted) and departures (scheduled
 * as pods are placed). At equal times departures come first, so capacity freed at time t is there for a
 * pod arriving at t; equal departures go by pod id, arrivals by arrival order. Departures live in a
 * binary heap of {@code long}s, {@code time << 24 | pod}, so the loop allocates nothing per event.
 */
final class EventQueue {
    static final int POD_BITS = 24;
    static final int MAX_PODS = 1 << POD_BITS;
    private static final long POD_MASK = MAX_PODS - 1;

    private final long[] arrivals;
    private int nextArrival;
    private long[] heap = new long[256];
    private int size;

    /** @param arrivals arrival time of each pod, by pod id, non-decreasing */
    EventQueue(long[] arrivals) {
        for (int i = 1; i < arrivals.length; i++)
            if (arrivals[i] < arrivals[i - 1]) throw new IllegalArgumentException("arrivals must be sorted");
        this.arrivals = arrivals;
    }

    void scheduleDeparture(long timeMs, int pod) {
        if (timeMs < 0 || timeMs >= (1L << (63 - POD_BITS))) throw new IllegalArgumentException("time out of range: " + timeMs);
        if (size == heap.length) heap = Arrays.copyOf(heap, size * 2);
        long key = timeMs << POD_BITS | pod;
        int i = size++;
        while (i > 0) {
            int parent = (i - 1) >>> 1;
            if (heap[parent] <= key) break;
            heap[i] = heap[parent];
            i = parent;
        }
        heap[i] = key;
    }

    boolean isEmpty() { return size == 0 && nextArrival == arrivals.length; }

    /** Time of the next event; call only when not empty. */
    long peekTime() {
        long dep = size > 0 ? heap[0] >>> POD_BITS : Long.MAX_VALUE;
        long arr = nextArrival < arrivals.length ? arrivals[nextArrival] : Long.MAX_VALUE;
        return Math.min(dep, arr);
    }

    /** True when the next event is a departure. */
    boolean departureNext() {
        if (size == 0) return false;
        return nextArrival == arrivals.length || (heap[0] >>> POD_BITS) <= arrivals[nextArrival];
    }

    /** Removes the next event and returns its pod; {@link #departureNext()} told which kind it is. */
    int poll() {
        if (departureNext()) {
            long top = heap[0];
            long last = heap[--size];
            int i = 0;
            while (true) {
                int c = 2 * i + 1;
                if (c >= size) break;
                if (c + 1 < size && heap[c + 1] < heap[c]) c++;
                if (heap[c] >= last) break;
                heap[i] = heap[c];
                i = c;
            }
            if (size > 0) heap[i] = last;
            return (int) (top & POD_MASK);
        }
        if (nextArrival == arrivals.length) throw new IllegalStateException("no events left");
        return nextArrival++;
    }

    int pendingDepartures() { return size; }
}
