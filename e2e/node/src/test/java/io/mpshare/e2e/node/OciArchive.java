package io.mpshare.e2e.node;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * A single-layer OCI image archive ({@code oci-layout}, {@code index.json}, {@code blobs/sha256/...}), the form
 * {@code ctr images import} reads. The layer is an uncompressed ustar of the given entries (owner root, mtime 0).
 * No registry is reachable on the test machines, so the tier's images are made here from host binaries.
 */
final class OciArchive {
    /** One entry of the layer. */
    sealed interface Entry permits FileEntry, DirEntry, LinkEntry {
        String name();
    }

    record FileEntry(String name, byte[] data, int mode) implements Entry {}

    record DirEntry(String name) implements Entry {}

    record LinkEntry(String name, String target) implements Entry {}

    private OciArchive() {}

    /**
     * Writes the image {@code ref} (e.g. {@code docker.io/mpshare-e2e/pause:1}) with {@code entrypoint} to {@code out}.
     */
    static void write(Path out, String ref, List<Entry> entries, List<String> entrypoint) throws IOException {
        byte[] layer = tar(entries);
        String layerDigest = sha256(layer);
        byte[] config = ("{\"architecture\":\"amd64\",\"os\":\"linux\",\"config\":{\"Entrypoint\":" + jsonArray(entrypoint)
                + ",\"Env\":[\"PATH=/bin\"]},\"rootfs\":{\"type\":\"layers\",\"diff_ids\":[\"sha256:" + layerDigest + "\"]}}")
                .getBytes(StandardCharsets.UTF_8);
        String configDigest = sha256(config);
        byte[] manifest = ("{\"schemaVersion\":2,\"mediaType\":\"application/vnd.oci.image.manifest.v1+json\","
                + "\"config\":{\"mediaType\":\"application/vnd.oci.image.config.v1+json\",\"digest\":\"sha256:" + configDigest
                + "\",\"size\":" + config.length + "},\"layers\":[{\"mediaType\":\"application/vnd.oci.image.layer.v1.tar\","
                + "\"digest\":\"sha256:" + layerDigest + "\",\"size\":" + layer.length + "}]}").getBytes(StandardCharsets.UTF_8);
        String manifestDigest = sha256(manifest);
        String tag = ref.substring(ref.lastIndexOf(':') + 1);
        byte[] index = ("{\"schemaVersion\":2,\"manifests\":[{\"mediaType\":\"application/vnd.oci.image.manifest.v1+json\","
                + "\"digest\":\"sha256:" + manifestDigest + "\",\"size\":" + manifest.length + ",\"annotations\":{"
                + "\"io.containerd.image.name\":\"" + ref + "\",\"org.opencontainers.image.ref.name\":\"" + tag + "\"},"
                + "\"platform\":{\"architecture\":\"amd64\",\"os\":\"linux\"}}]}").getBytes(StandardCharsets.UTF_8);
        List<Entry> outer = new ArrayList<>();
        outer.add(new FileEntry("oci-layout", "{\"imageLayoutVersion\":\"1.0.0\"}".getBytes(StandardCharsets.UTF_8), 0644));
        outer.add(new FileEntry("index.json", index, 0644));
        outer.add(new DirEntry("blobs"));
        outer.add(new DirEntry("blobs/sha256"));
        outer.add(new FileEntry("blobs/sha256/" + layerDigest, layer, 0644));
        outer.add(new FileEntry("blobs/sha256/" + configDigest, config, 0644));
        outer.add(new FileEntry("blobs/sha256/" + manifestDigest, manifest, 0644));
        Files.write(out, tar(outer));
    }

    /** A ustar archive of the entries, ending in two zero blocks. */
    static byte[] tar(List<Entry> entries) {
        var out = new ByteArrayOutputStream();
        for (Entry e : entries) {
            switch (e) {
                case FileEntry f -> {
                    out.writeBytes(header(f.name(), f.mode(), f.data().length, '0', ""));
                    out.writeBytes(f.data());
                    out.writeBytes(new byte[(512 - f.data().length % 512) % 512]);
                }
                case DirEntry d -> out.writeBytes(header(d.name() + "/", 0755, 0, '5', ""));
                case LinkEntry l -> out.writeBytes(header(l.name(), 0777, 0, '2', l.target()));
            }
        }
        out.writeBytes(new byte[1024]);
        return out.toByteArray();
    }

    private static byte[] header(String name, int mode, long size, char type, String link) {
        if (name.length() > 100 || link.length() > 100) throw new IllegalArgumentException("tar name over 100 characters: " + name);
        byte[] h = new byte[512];
        put(h, 0, name);
        put(h, 100, octal(mode, 7));
        put(h, 108, octal(0, 7));
        put(h, 116, octal(0, 7));
        put(h, 124, octal(size, 11));
        put(h, 136, octal(0, 11));
        put(h, 148, "        ");
        h[156] = (byte) type;
        put(h, 157, link);
        put(h, 257, "ustar\0");
        put(h, 263, "00");
        put(h, 265, "root");
        put(h, 297, "root");
        int sum = 0;
        for (byte b : h) sum += b & 0xff;
        put(h, 148, octal(sum, 6) + "\0 ");
        return h;
    }

    private static String octal(long v, int digits) {
        String s = Long.toOctalString(v);
        return "0".repeat(Math.max(0, digits - s.length())) + s;
    }

    private static void put(byte[] h, int at, String s) {
        byte[] b = s.getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(b, 0, h, at, b.length);
    }

    private static String jsonArray(List<String> items) {
        var sb = new StringBuilder("[");
        for (String s : items) sb.append(sb.length() > 1 ? "," : "").append('"').append(s.replace("\\", "\\\\").replace("\"", "\\\"")).append('"');
        return sb.append(']').toString();
    }

    static String sha256(byte[] data) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(data));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
