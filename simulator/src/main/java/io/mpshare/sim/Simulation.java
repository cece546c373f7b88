package io.mpshare.sim;

import io.mpshare.sim.model.SharingModel;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * Runs a {@link Scenario} under each {@link SharingModel}: once on the given cluster (pods that do not fit
 * wait), once elastic (nodes are added until nothing waits, which gives the GPUs each model needs).
 * Runs are independent and deterministic; they go in parallel over {@code threads} threads. When the
 * fixed run opened nodes exactly as the elastic run would and nothing waited
 * ({@link RunResult#elasticEquivalent()}), the elastic run would repeat it decision for decision, so the
 * fixed run stands for it and the elastic run is skipped.
 */
public final class Simulation {
    private Simulation() {}

    /** Both runs of one model. {@link #gpusNeeded()} is the elastic run's peak. */
    public record ModelResult(SharingModel model, RunResult fixed, RunResult elastic) {
        public int gpusNeeded() { return elastic.peakGpusInUse(); }
    }

    public record Result(Scenario scenario, List<ModelResult> models) {
        public Result { models = List.copyOf(models); }

        public ModelResult model(String id) {
            for (ModelResult m : models) if (m.model().id().equals(id)) return m;
            return null;
        }
    }

    public static Result run(Scenario scenario, List<SharingModel> models, Progress progress, int threads) {
        return run(scenario, models, progress, threads, true);
    }

    /**
     * @param reuse skip a model's elastic run when its fixed run is {@link RunResult#elasticEquivalent()}
     *              (the elastic run would repeat every decision); false runs it anyway, for tests
     */
    static Result run(Scenario scenario, List<SharingModel> models, Progress progress, int threads, boolean reuse) {
        if (models.isEmpty()) throw new IllegalArgumentException("no policies to simulate");
        if (threads <= 1) {
            List<ModelResult> out = new ArrayList<>();
            for (SharingModel m : models) {
                RunResult fixed = new PolicyRun(scenario, m, false, progress).run();
                out.add(new ModelResult(m, fixed, reuse && fixed.elasticEquivalent() ? fixed.asElastic() : new PolicyRun(scenario, m, true, progress).run()));
            }
            return new Result(scenario, out);
        }
        try (ExecutorService pool = Executors.newFixedThreadPool(threads, r -> {
            Thread t = new Thread(r, "simulate");
            t.setDaemon(true);
            return t;
        })) {
            // every fixed run is queued first; an elastic run follows only when its fixed run cannot stand for it
            List<CompletableFuture<ModelResult>> futures = new ArrayList<>();
            for (SharingModel m : models) {
                futures.add(CompletableFuture.supplyAsync(() -> new PolicyRun(scenario, m, false, progress).run(), pool)
                        .thenCompose(f -> reuse && f.elasticEquivalent()
                                ? CompletableFuture.completedFuture(new ModelResult(m, f, f.asElastic()))
                                : CompletableFuture.supplyAsync(() -> new ModelResult(m, f, new PolicyRun(scenario, m, true, progress).run()), pool)));
            }
            List<ModelResult> out = new ArrayList<>();
            for (var f : futures) out.add(f.get());
            return new Result(scenario, out);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("simulation interrupted", e);
        } catch (ExecutionException e) {
            Throwable c = e.getCause() instanceof CompletionException ce && ce.getCause() != null ? ce.getCause() : e.getCause();
            if (c instanceof RuntimeException re) throw re;
            if (c instanceof Error err) throw err;
            throw new IllegalStateException(c);
        }
    }
}
