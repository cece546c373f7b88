package io.mpshare.sim;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class EventQueueTest {

    private static List<String> drain(EventQueue q) {
        List<String> out = new ArrayList<>();
        while (!q.isEmpty()) {
            long t = q.peekTime();
            boolean dep = q.departureNext();
            out.add((dep ? "D" : "A") + q.poll() + "@" + t);
        }
        return out;
    }

    @Test
    void poll_departureBeforeArrivalAtTheSameTime() {
        var q = new EventQueue(new long[]{0, 10, 10});
        assertThat(q.poll()).isZero();
        q.scheduleDeparture(10, 0);
        assertThat(drain(q)).containsExactly("D0@10", "A1@10", "A2@10");
    }

    @Test
    void poll_eventsInTimeOrder_tiesByPodId() {
        var q = new EventQueue(new long[]{5, 7, 50});
        q.scheduleDeparture(30, 9);
        q.scheduleDeparture(20, 4);
        q.scheduleDeparture(30, 3);
        q.scheduleDeparture(6, 8);
        assertThat(drain(q)).containsExactly("A0@5", "D8@6", "A1@7", "D4@20", "D3@30", "D9@30", "A2@50");
    }

    @Test
    void poll_manyDepartures_comeOutSorted() {
        var q = new EventQueue(new long[0]);
        var rnd = new java.util.SplittableRandom(1);
        long[] times = new long[5000];
        for (int i = 0; i < times.length; i++) { times[i] = rnd.nextLong(1_000_000); q.scheduleDeparture(times[i], i); }
        long last = -1;
        int n = 0;
        while (!q.isEmpty()) {
            long t = q.peekTime();
            int pod = q.poll();
            assertThat(t).isGreaterThanOrEqualTo(last).isEqualTo(times[pod]);
            last = t;
            n++;
        }
        assertThat(n).isEqualTo(times.length);
    }

    @Test
    void constructor_unsortedArrivals_refused() {
        assertThatThrownBy(() -> new EventQueue(new long[]{5, 3})).isInstanceOf(IllegalArgumentException.class);
    }
}
