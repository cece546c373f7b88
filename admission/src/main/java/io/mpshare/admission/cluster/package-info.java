/** What the webhook needs to know of the cluster: the largest GPU, from the nodes' {@code mpshare.io/gpus} inventories. */
package io.mpshare.admission.cluster;
