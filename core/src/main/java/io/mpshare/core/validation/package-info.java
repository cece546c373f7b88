/**
 * Admission rules for pods, over plain values: a {@link io.mpshare.core.validation.PodView} in,
 * a list of {@link io.mpshare.core.validation.Violation}s out, each saying what to change.
 * The admission webhook translates a v1.Pod into a {@code PodView} and the violations into its answer.
 */
package io.mpshare.core.validation;
