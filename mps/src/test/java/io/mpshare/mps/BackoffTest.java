package io.mpshare.mps;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

class BackoffTest {
    @ParameterizedTest(name = "failure {0} → {1} ms")
    @CsvSource({"0,1000", "1,1000", "2,2000", "3,4000", "6,32000", "7,60000", "40,60000"})
    void delay_doublesUpToMax(int failures, long millis) {
        assertThat(new Backoff(Duration.ofSeconds(1), Duration.ofSeconds(60)).delay(failures)).isEqualTo(Duration.ofMillis(millis));
    }
}
