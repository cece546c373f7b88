package io.mpshare.mps.fault;

import java.time.Instant;

/**
 * One detector's report. Either for one domain (its own log said so: {@code domain} set) or for one GPU (an NVML Xid:
 * {@code gpu} set, it cannot say which domain's client faulted, and the PID the kernel logs names a victim).
 *
 * @param source {@link #LOG}, {@link #XID} or {@link #SERVER_STATUS}
 * @param strength what the supervisor may do on this signal alone ({@link Strength})
 * @param detail the line or event, for a person
 */
public record FaultSignal(String source, Instant at, String domain, String gpu, Strength strength, String detail) {
    public static final String LOG = "log";
    public static final String XID = "xid";
    public static final String SERVER_STATUS = "server-status";

    /**
     * {@code FAULT}: this domain's server faulted (a measured line, or the daemon itself reports the server not ACTIVE).
     * {@code HINT}: a fault may have happened (a GPU's Xid; a fault word in a domain's log that was never measured as
     * one): acted on only when a hint for the domain and one for its GPU meet ({@link FaultJudge}).
     */
    public enum Strength { FAULT, HINT }

    public static FaultSignal forDomain(String source, Instant at, String domain, Strength strength, String detail) {
        return new FaultSignal(source, at, domain, null, strength, detail);
    }

    public static FaultSignal forGpu(String source, Instant at, String gpu, String detail) {
        return new FaultSignal(source, at, null, gpu, Strength.HINT, detail);
    }
}
