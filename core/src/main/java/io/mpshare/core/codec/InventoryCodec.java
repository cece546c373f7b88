package io.mpshare.core.codec;

import io.mpshare.core.model.Gpu;
import io.mpshare.core.model.NodeInventory;

import java.util.ArrayList;
import java.util.List;

/**
 * The GPU inventory the device plugin publishes on its Node ({@code mpshare.io/gpus}) and the extender reads.
 * One entry per GPU, separated by {@code ;}: {@code index|uuid|model|totalMiB|healthy}, e.g.
 * <pre>0|GPU-8c1f...|NVIDIA H200|143771|true;1|GPU-2b7a...|NVIDIA H200|143771|false</pre>
 * Per-GPU sizes are explicit, so nodes with GPUs of different sizes are exact (no capacity ÷ count).
 */
public final class InventoryCodec {
    private InventoryCodec() {}

    public static String encode(NodeInventory inv) {
        StringBuilder sb = new StringBuilder();
        for (Gpu g : inv.gpus()) {
            if (!sb.isEmpty()) sb.append(';');
            sb.append(g.index()).append('|').append(clean(g.uuid())).append('|').append(clean(g.model()))
              .append('|').append(g.totalMib()).append('|').append(g.healthy());
        }
        return sb.toString();
    }

    private static String clean(String s) { return s.replace('|', '/').replace(';', ','); }

    /** Parses an inventory; throws IllegalArgumentException naming the node and the bad entry. */
    public static NodeInventory decode(String node, String text) {
        List<Gpu> gpus = new ArrayList<>();
        if (text != null && !text.isBlank()) {
            for (String entry : text.split(";")) {
                String[] p = entry.split("\\|");
                if (p.length != 5)
                    throw new IllegalArgumentException("node " + node + ": GPU entry '" + entry + "' is not index|uuid|model|MiB|healthy");
                String health = p[4].trim();
                if (!health.equals("true") && !health.equals("false"))
                    throw new IllegalArgumentException("node " + node + ": GPU entry '" + entry + "' has health '" + health + "': use true or false");
                try {
                    gpus.add(new Gpu(Integer.parseInt(p[0].trim()), p[1].trim(), p[2].trim(), Long.parseLong(p[3].trim()),
                            Boolean.parseBoolean(health)));
                } catch (NumberFormatException e) {
                    throw new IllegalArgumentException("node " + node + ": GPU entry '" + entry + "' has a bad number: " + e.getMessage(), e);
                } catch (IllegalArgumentException e) {
                    throw new IllegalArgumentException("node " + node + ": GPU entry '" + entry + "': " + e.getMessage(), e);
                }
            }
        }
        return new NodeInventory(node, gpus);
    }
}
