package io.mpshare.scheduler.http;

/** kube-scheduler's {@code ExtenderBindingArgs}. */
public record BindingArgs(String podName, String podNamespace, String podUid, String node) {}
