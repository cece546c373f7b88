package io.mpshare.mps.fault;

import io.mpshare.mps.fault.FaultSignal.Strength;

import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * What one line of an MPS daemon's or server's log says about a fault. Measured on the H200 (driver 580): after one
 * client's illegal memory access the server refused new clients with "Server teardown in progress. Refusing to accept
 * new client" until every faulted client had exited; that line is a {@link Strength#FAULT}. Lines with a fault word
 * ({@code fatal}, {@code exception}, {@code MMU fault}, {@code illegal address}, {@code Xid}) were not measured as a fault
 * report: they are {@link Strength#HINT}s, acted on only with an Xid on the domain's GPU ({@link FaultJudge}). The
 * supervisor's own control commands never match (they are logged as {@code Cmd:…}).
 */
public final class FaultLines {
    private FaultLines() {}

    private static final List<String> MEASURED = List.of("server teardown in progress", "refusing to accept new client");
    private static final Pattern HINT = Pattern.compile("\\b(fatal|exception|mmu fault|illegal (memory )?address|xid)\\b");

    /** The strength of what {@code line} says, or empty when it says nothing about a fault. */
    public static Optional<Strength> read(String line) {
        String l = line.toLowerCase(Locale.ROOT);
        if (l.contains("cmd:")) return Optional.empty();
        for (String m : MEASURED) if (l.contains(m)) return Optional.of(Strength.FAULT);
        return HINT.matcher(l).find() ? Optional.of(Strength.HINT) : Optional.empty();
    }
}
