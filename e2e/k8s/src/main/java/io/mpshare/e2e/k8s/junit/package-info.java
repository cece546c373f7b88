/** JUnit glue for the real control-plane tier: {@link io.mpshare.e2e.k8s.junit.RealControlPlane} shares one cluster per test run. */
package io.mpshare.e2e.k8s.junit;
