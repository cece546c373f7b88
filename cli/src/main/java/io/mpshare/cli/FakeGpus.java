package io.mpshare.cli;

import io.mpshare.nvml.fake.FakeNvml;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * {@code --fake-gpus}: the GPU sizes in MiB of a node without a GPU, e.g. {@code 12036,16384,81559} or
 * {@code 2x143771} (two H200s). Each becomes a device of a {@link FakeNvml} named by {@code --fake-gpu-model}.
 *
 * @param mib the sizes, one per fake GPU, in index order
 */
public record FakeGpus(List<Long> mib, String model) {
    /** Smaller than any GPU mpshare shares: refuses the old "--fake-gpus N" (a count) with a message. */
    static final long MIN_MIB = 1024;
    static final int MAX_GPUS = 64;

    public FakeGpus {
        mib = List.copyOf(mib);
        if (mib.isEmpty()) throw new IllegalArgumentException("--fake-gpus needs at least one size");
        if (model == null || model.isBlank()) throw new IllegalArgumentException("--fake-gpu-model must not be empty");
    }

    /** Parses the flag's value; every refusal names the flag and says what to write instead. */
    public static FakeGpus parse(String value, String model) {
        String v = value == null ? "" : value.strip().toLowerCase(Locale.ROOT);
        List<Long> sizes = new ArrayList<>();
        for (String part : v.split(",", -1)) {
            String p = part.strip();
            int x = p.indexOf('x');
            long count = 1;
            try {
                if (x > 0) {
                    count = Long.parseLong(p.substring(0, x).strip());
                    p = p.substring(x + 1).strip();
                }
                long size = Long.parseLong(p);
                if (count < 1 || size < MIN_MIB) throw new NumberFormatException();
                for (long i = 0; i < count && sizes.size() <= MAX_GPUS; i++) sizes.add(size);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("--fake-gpus " + value + ": write each fake GPU's memory in MiB, at least "
                        + MIN_MIB + ", comma-separated (12036,16384,81559), or COUNTxMIB (2x" + FakeNvml.H200_MIB
                        + " for two H200s); leave the flag out to use the real GPUs through NVML");
            }
        }
        if (sizes.size() > MAX_GPUS) throw new IllegalArgumentException("--fake-gpus " + value + ": at most " + MAX_GPUS + " GPUs a node");
        return new FakeGpus(sizes, model.strip());
    }

    public FakeNvml nvml() {
        FakeNvml nvml = new FakeNvml();
        for (long size : mib) nvml.addDevice(model, size);
        return nvml;
    }
}
