/**
 * Filter and prioritize in domain terms ({@link io.mpshare.scheduler.verbs.Verbs}): a pod's resolved ask and the
 * candidate node names in, an answer out, so the wire adapter ({@code .http}) only translates.
 */
package io.mpshare.scheduler.verbs;
