package io.mpshare.scheduler.requeue;

import io.mpshare.core.model.ContainerRequest;
import io.mpshare.core.model.GpuDemand;
import io.mpshare.core.model.PodInfo;
import io.mpshare.core.model.PodKey;
import io.mpshare.scheduler.cycle.Ask;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.OptionalLong;
import java.util.Set;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The requeue's decisions without threads: a refused pod is woken when room it fits appears on a node it was refused
 * on, whether the growth reaches the book before or after the refusal, and never for a growth its filter already saw.
 */
class WakeBookTest {
    private static final Instant T0 = Instant.parse("2026-12-01T10:00:00Z");
    /** Which (pod, node) pairs fit now: the test's stand-in for the filter. */
    private final Set<String> fits = new HashSet<>();
    private final List<String> checked = new ArrayList<>();
    private final Requeue.Fit fit = (ask, node) -> { checked.add(ask.pod().key().name() + "@" + node); return fits.contains(ask.pod().key().name() + "@" + node); };
    private final WakeBook book = new WakeBook(fit, Duration.ofSeconds(1), 10, 3, T0);

    static Ask.Gpu ask(String name) {
        PodInfo pod = new PodInfo(PodKey.of("ns", name), "uid-" + name, List.of(new ContainerRequest("main", false, 7168, 0)), 1, OptionalLong.empty());
        return new Ask.Gpu(pod, GpuDemand.simple(7168, 0, 1, 1024));
    }

    private List<String> woken(Instant at) { return book.due(at).stream().map(w -> w.pod().name() + ": " + w.reason()).toList(); }

    @Test void releaseAfterTheRefusal_wakesThePodOnceItFits() {
        book.refused(ask("w"), List.of("n1", "n2"), 5);
        book.grew("n1", 6);                       // room, but not enough for w
        assertThat(woken(T0)).isEmpty();
        fits.add("w@n1");
        book.grew("n1", 7);
        assertThat(woken(T0)).containsExactly("w: node n1 has room for it");
        assertThat(book.waiting()).isZero();      // its retry's filter records it again if it is refused
    }

    @Test void releaseSeenBeforeTheRefusalWasRecorded_butAfterItsFilterReadTheLedger_stillWakes() {
        fits.add("w@n1");
        book.grew("n1", 6);                       // the extender's informer released the room ...
        book.refused(ask("w"), List.of("n1"), 5); // ... while a filter that had read sequence 5 refused w on the old ledger
        assertThat(woken(T0)).containsExactly("w: node n1 has room for it");
    }

    @Test void growthTheFilterAlreadySaw_noWake_noCheck() {
        fits.add("w@n1");
        book.grew("n1", 6);
        book.refused(ask("w"), List.of("n1"), 6);
        book.grew("n2", 7);                       // a node w was not refused on
        assertThat(woken(T0)).isEmpty();
        assertThat(checked).isEmpty();
        assertThat(book.waiting()).isEqualTo(1);
    }

    @Test void keptBoundOrDeleted_forgotten() {
        fits.add("w@n1");
        book.refused(ask("w"), List.of("n1"), 1);
        book.forget(PodKey.of("ns", "w"));
        book.grew("n1", 2);
        assertThat(woken(T0)).isEmpty();
        book.refused(ask("v"), List.of("n1"), 3);
        fits.add("v@n1");
        book.grew("n1", 4);
        book.forget(PodKey.of("ns", "v"));         // deleted while its wake was queued
        assertThat(woken(T0)).isEmpty();
    }

    @Test void refusedOnMoreNodesThanKept_countsAsEverywhere() {
        List<String> many = IntStream.range(0, WakeBook.MAX_NODES + 1).mapToObj(i -> "n" + i).toList();
        book.refused(ask("w"), many, 1);
        fits.add("w@elsewhere");
        book.grew("elsewhere", 2);
        assertThat(woken(T0)).containsExactly("w: node elsewhere has room for it");
    }

    @Test void perPodSpacing_andTheClusterBucket() {
        for (String p : List.of("a", "b", "c", "d", "e")) { fits.add(p + "@n1"); book.refused(ask(p), List.of("n1"), 1); }
        book.grew("n1", 2);
        assertThat(woken(T0)).hasSize(3);                                   // burst 3
        assertThat(book.nextDue(T0)).isEqualTo(T0.plusMillis(100));         // 10 per second
        assertThat(woken(T0.plusMillis(100))).hasSize(1);
        assertThat(woken(T0.plusMillis(200))).hasSize(1);
        assertThat(book.queued()).isZero();
        book.refused(ask("a"), List.of("n1"), 3);                           // refused again at once
        book.grew("n1", 4);
        assertThat(woken(T0.plusMillis(500))).as("a was woken less than a second ago").isEmpty();
        assertThat(book.nextDue(T0.plusMillis(500))).isEqualTo(T0.plusSeconds(1));
        assertThat(woken(T0.plusSeconds(1))).containsExactly("a: node n1 has room for it");
    }

    @Test void failedDelivery_triedAgain_thenWaitsForTheNextGrowthAnywhere() {
        fits.add("w@n1");
        book.refused(ask("w"), List.of("n1"), 1);
        book.grew("n1", 2);
        WakeBook.Wake w = book.due(T0).getFirst();
        Instant t = T0;
        for (int i = 1; i < WakeBook.MAX_FAILURES; i++) {
            book.failed(w);
            t = t.plusSeconds(1);
            w = book.due(t).getFirst();
            assertThat(w.failures()).isEqualTo(i);
        }
        book.failed(w);
        assertThat(book.due(t.plusSeconds(1))).isEmpty();
        assertThat(book.waiting()).isEqualTo(1);
        fits.add("w@n9");
        book.grew("n9", 3);
        assertThat(woken(t.plusSeconds(2))).containsExactly("w: node n9 has room for it");
    }

    @Test void foundAtStart_wokenIfItFitsSomewhere_elseOnTheNextGrowthAnywhere() {
        fits.add("a@n2");
        book.found(ask("a"), List.of("n1", "n2"));
        book.found(ask("b"), List.of("n1", "n2"));
        assertThat(woken(T0)).containsExactly("a: node n2 has room for it");
        fits.add("b@n1");
        book.grew("n1", 1);
        assertThat(woken(T0.plusSeconds(1))).containsExactly("b: node n1 has room for it");
    }
}
