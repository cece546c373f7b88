package io.mpshare.core.policy;

import io.mpshare.core.ledger.FitIndex;
import io.mpshare.core.ledger.NodeState;
import io.mpshare.core.model.GpuDemand;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Node scores remembered per {@link PlacementPolicy#scoreKey} and node version ({@link FitIndex.View#version}). The
 * filter's shortlist and prioritize score every node that fits, thousands per pod on a large cluster, while between
 * two pods of one shape only the few nodes that took a pod (or whose host room moved) changed; a score is given back
 * while its node's version is the one it was made at, so those are the only nodes scored again.
 *
 * <p>Per key a board of two longs per index slot (version, score), in slot order: a node's remembered score is one
 * read beside its version, with no map lookup by name. A board is made the second time its key is asked (a key asked
 * once, as a pod of its own fault domain brings, costs no board), and at most {@link #MAX_KEYS} are kept (then every
 * board is dropped and made again on demand).
 *
 * <p>Concurrency: a writer takes a cell by moving its version to {@code BUSY} (a compare-and-set; a writer that loses
 * does not write), writes the score, then the version; a reader takes the score only when the version reads the same
 * before and after it. So a score is never given for a version it was not made at.
 */
final class ScoreBoard {
    /** Distinct keys kept at once. */
    static final int MAX_KEYS = 64;
    private static final long BUSY = -1, EMPTY = -3; // never a version: versions are even and >= 0
    private static final VarHandle CELLS = MethodHandles.arrayElementVarHandle(long[].class);
    private static final Board NONE = new Board(0);

    private final ConcurrentHashMap<Object, Board> boards = new ConcurrentHashMap<>();

    /** The board of {@code key} ({@link #NONE}, remembering nothing, for a null key or one asked the first time). */
    Board board(Object key, int capacity) {
        if (key == null) return NONE;
        Board b = boards.get(key);
        if (b != null && b.slots() >= capacity) return b;
        if (b == null) { // the first time: remembered as seen, no board yet
            if (boards.size() >= MAX_KEYS) boards.clear();
            boards.putIfAbsent(key, NONE);
            return NONE;
        }
        Board made = new Board(capacity); // the second time, or the index outgrew the board
        return boards.replace(key, b, made) ? made : boards.getOrDefault(key, NONE);
    }

    /** One key's scores by slot. */
    static final class Board {
        private final long[] cells;

        private Board(int slots) {
            cells = new long[2 * slots];
            for (int i = 0; i < cells.length; i += 2) cells[i] = EMPTY;
        }

        int slots() { return cells.length / 2; }

        /**
         * {@code p}'s score of {@code d} on the node in {@code slot} of {@code v}: the remembered one while the node's
         * version is the one it was made at, else scored on the slot's snapshot (and remembered when the snapshot was
         * read at one version). {@link PlacementPolicy#NO_FIT} for an absent node.
         */
        long score(FitIndex.View v, int slot, PlacementPolicy p, GpuDemand d) {
            long version = v.version(slot);
            int c = 2 * slot;
            boolean here = c < cells.length;
            if (here && (long) CELLS.getAcquire(cells, c) == version) {
                long s = cells[c + 1];
                VarHandle.loadLoadFence();
                if ((long) CELLS.getOpaque(cells, c) == version) return s;
            }
            NodeState s = v.state(slot);
            long score = s == null ? PlacementPolicy.NO_FIT : p.score(s, d);
            if (here && v.still(slot, version)) put(c, version, score);
            return score;
        }

        private void put(int c, long version, long score) {
            long was = (long) CELLS.getVolatile(cells, c);
            if (was == BUSY || !CELLS.compareAndSet(cells, c, was, BUSY)) return;
            cells[c + 1] = score;
            CELLS.setRelease(cells, c, version);
        }
    }
}
