package io.mpshare.sim;

import io.mpshare.sim.model.SharingModel;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Runs a {@link Scenario} under each {@link SharingModel}: once on the given cluster (pods that do not fit
 * wait), once elastic (nodes are added until nothing waits, which gives the GPUs each model needs).
 * Runs are independent and deterministic; they go in parallel over {@code threads} threads.
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
        if (models.isEmpty()) throw new IllegalArgumentException("no policies to simulate");
        if (threads <= 1) {
            List<ModelResult> out = new ArrayList<>();
            for (SharingModel m : models)
                out.add(new ModelResult(m, new PolicyRun(scenario, m, false, progress).run(), new PolicyRun(scenario, m, true, progress).run()));
            return new Result(scenario, out);
        }
        try (ExecutorService pool = Executors.newFixedThreadPool(threads, r -> {
            Thread t = new Thread(r, "simulate");
            t.setDaemon(true);
            return t;
        })) {
            List<Future<RunResult>> fixed = new ArrayList<>(), elastic = new ArrayList<>();
            for (SharingModel m : models) {
                fixed.add(pool.submit(() -> new PolicyRun(scenario, m, false, progress).run()));
                elastic.add(pool.submit(() -> new PolicyRun(scenario, m, true, progress).run()));
            }
            List<ModelResult> out = new ArrayList<>();
            for (int i = 0; i < models.size(); i++) out.add(new ModelResult(models.get(i), fixed.get(i).get(), elastic.get(i).get()));
            return new Result(scenario, out);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("simulation interrupted", e);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException re) throw re;
            throw new IllegalStateException(e.getCause());
        }
    }
}
