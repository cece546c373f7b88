/**
 * A command-line driver for the real policer on a GPU machine without Kubernetes (e2e/gpu): jobs from a
 * small text file stand in for pods; JSON lines out. Not used in production paths.
 */
package io.mpshare.policing.harness;
