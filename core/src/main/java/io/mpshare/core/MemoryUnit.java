package io.mpshare.core;

import java.util.Locale;

/** The unit of the {@code aliyun.com/gpu-mem} device: GiB by default, MiB selectable. Internally all is MiB. */
public enum MemoryUnit {
    GIB(1024), MIB(1);

    private final long mib;

    MemoryUnit(long mib) { this.mib = mib; }

    public long mibPerUnit() { return mib; }

    /** Converts a device count in this unit to MiB; throws on overflow or a negative count. */
    public long toMib(long units) {
        if (units < 0) throw new IllegalArgumentException("negative amount " + units);
        return Math.multiplyExact(units, mib);
    }

    /** Whole units contained in {@code mib} (rounded down). */
    public long fromMib(long mib) { return mib / this.mib; }

    /** Parses "GiB"/"gib"/"MiB"/"mib"; says which values are accepted otherwise. */
    public static MemoryUnit parse(String s) {
        return switch (s.trim().toLowerCase(Locale.ROOT)) {
            case "gib", "gi", "g" -> GIB;
            case "mib", "mi", "m" -> MIB;
            default -> throw new IllegalArgumentException("unknown memory unit '" + s + "': use GiB or MiB");
        };
    }

    public String symbol() { return this == GIB ? "GiB" : "MiB"; }
}
