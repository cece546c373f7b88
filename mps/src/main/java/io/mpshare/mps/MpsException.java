package io.mpshare.mps;

/** A control command failed: what was sent and what the control client answered. */
public final class MpsException extends RuntimeException {
    public MpsException(String message) { super(message); }

    public MpsException(String message, Throwable cause) { super(message, cause); }
}
