package io.mpshare.nvml;

/** An NVML call failed: the NVML return code, its name/error string, and which call. */
public final class NvmlException extends RuntimeException {
    private final int code;

    public NvmlException(String call, int code, String nvmlError) {
        super(call + " failed: " + nvmlError + " (NVML return " + code + ")");
        this.code = code;
    }

    /** For a machine without the library or without GPUs: one clear message, code -1. */
    public NvmlException(String message) {
        super(message);
        this.code = -1;
    }

    public int code() { return code; }
}
