package io.mpshare.admission;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/** AdmissionReview JSON bodies as kube-apiserver sends them, from test resources. */
public final class Reviews {
    private Reviews() {}

    public static String json(String name) {
        try (InputStream in = Reviews.class.getResourceAsStream("/reviews/" + name + ".json")) {
            if (in == null) throw new IllegalArgumentException("no test review " + name);
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
