package io.mpshare.mps;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;

import java.io.IOException;
import java.io.UncheckedIOException;

/** The one JSON mapping of {@link SupervisorStatus}: written by the supervisor, read by {@link SupervisorStatusClient}. */
final class StatusJson {
    private StatusJson() {}

    private static final ObjectMapper MAPPER = new ObjectMapper()
            .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false) // newer supervisors may add fields
            .configure(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS, true);

    static byte[] write(Object value) {
        try {
            return MAPPER.writeValueAsBytes(value);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static <T> T read(byte[] json, Class<T> type) throws IOException {
        return MAPPER.readValue(json, type);
    }

    static ObjectMapper mapper() { return MAPPER; }
}
