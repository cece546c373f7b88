package io.mpshare.testing;

import org.junit.jupiter.api.Test;
import org.opentest4j.TestAbortedException;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class PrerequisitesTest {
    @Test void require_present_returns() {
        assertThatCode(() -> Prerequisites.require(true, "never said", "true")).doesNotThrowAnyException();
    }

    @Test void require_missingOnADevelopersMachine_skipsWithTheReason() {
        assertThatThrownBy(() -> Prerequisites.require(false, "the traces are not in /x", null))
                .isInstanceOf(TestAbortedException.class).hasMessageContaining("the traces are not in /x");
    }

    @Test void require_missingUnderCi_fails() {
        assertThatThrownBy(() -> Prerequisites.require(false, "the traces are not in /x", "true"))
                .isInstanceOf(AssertionError.class).hasMessage("CI=true, so this is a failure, not a skip: the traces are not in /x");
    }
}
