package io.mpshare.deviceplugin.allocation;

import io.mpshare.core.ledger.Allocation;

/** Where the policer learns what a pod was answered, while it differs from the pod's annotation. */
public interface AnswerSink {
    void answered(Allocation asAnswered);

    void cleared(String podUid);

    AnswerSink NONE = new AnswerSink() {
        @Override public void answered(Allocation a) { }

        @Override public void cleared(String uid) { }
    };
}
