/** Text formats on Kubernetes objects: the pod allocation annotations (ours and ACK v1) and the node GPU inventory. */
package io.mpshare.core.codec;
