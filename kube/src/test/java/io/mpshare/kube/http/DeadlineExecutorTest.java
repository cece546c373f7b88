package io.mpshare.kube.http;

import io.mpshare.testing.ManualScheduler;
import io.mpshare.testing.Waits;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class DeadlineExecutorTest {
    final ManualScheduler timer = new ManualScheduler();

    @Test
    void exchangesThatBlock_doNotHoldBackTheNext_eachOnAVirtualThreadOfItsOwn() throws InterruptedException {
        try (var ex = new DeadlineExecutor("test", Duration.ofSeconds(10), timer)) {
            CountDownLatch never = new CountDownLatch(1);
            for (int i = 0; i < 200; i++) ex.execute(() -> await(never)); // 200 stalled clients
            CountDownLatch answered = new CountDownLatch(1);
            List<Boolean> virtual = new ArrayList<>();
            ex.execute(() -> { virtual.add(Thread.currentThread().isVirtual()); answered.countDown(); });
            assertThat(answered.await(10, TimeUnit.SECONDS)).isTrue();
            assertThat(virtual).containsExactly(true);
        }
    }

    @Test
    void exchangePastItsDeadline_isInterrupted_oneWithinItIsNot() throws InterruptedException {
        try (var ex = new DeadlineExecutor("test", Duration.ofSeconds(10), timer)) {
            CountDownLatch started = new CountDownLatch(2), interrupted = new CountDownLatch(1), release = new CountDownLatch(1);
            ex.execute(() -> { started.countDown(); if (!await(new CountDownLatch(1))) interrupted.countDown(); });
            awaitScheduled(1);
            timer.advance(Duration.ofSeconds(5));
            ex.execute(() -> { started.countDown(); await(release); });
            assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
            awaitScheduled(2);
            timer.advance(Duration.ofSeconds(5)); // the first has run 10 s, the second 5 s
            assertThat(interrupted.await(10, TimeUnit.SECONDS)).isTrue();
            release.countDown();
        }
    }

    @Test
    void deadlineMustBePositive() {
        assertThatThrownBy(() -> new DeadlineExecutor("test", Duration.ZERO, timer)).hasMessageContaining("must be positive");
    }

    /** Waits for the latch; false when interrupted (the deadline). */
    private static boolean await(CountDownLatch l) {
        try {
            l.await();
            return true;
        } catch (InterruptedException e) {
            return false;
        }
    }

    /** The exchange threads schedule their deadlines themselves: wait until {@code n} are pending on the manual timer. */
    private void awaitScheduled(int n) throws InterruptedException {
        Waits.until(Duration.ofSeconds(10), () -> timer.pending() >= n, () -> "deadlines scheduled: " + timer.pending() + ", wanted " + n);
    }
}
