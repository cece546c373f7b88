package io.mpshare.admission.cluster;

import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.mpshare.core.Names;
import io.mpshare.core.validation.ClientUid;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class NamespaceClientUidsTest {
    private final NamespaceClientUids uids = new NamespaceClientUids();

    private static Namespace ns(String name, String uid) {
        var b = new NamespaceBuilder().withNewMetadata().withName(name);
        if (uid != null) b.addToAnnotations(Names.ANN_CLIENT_UID, uid);
        return b.endMetadata().build();
    }

    @Test
    void onAdd_boundNamespace_isItsUidsClaimant() {
        uids.onAdd(ns("team-a", "1000"));
        uids.onAdd(ns("team-b", null));
        assertThat(uids.of("team-a")).isEqualTo(new ClientUid.Bound(1000));
        assertThat(uids.of("team-b")).isEqualTo(ClientUid.UNBOUND);
        assertThat(uids.of("never-seen")).isEqualTo(ClientUid.UNBOUND);
        assertThat(uids.claimants(1000)).containsExactly("team-a");
        assertThat(uids.claimants(2000)).isEmpty();
        assertThat(uids.anyBound()).isTrue();
    }

    @Test
    void onUpdate_uidChanged_oldUidFreed() {
        uids.onAdd(ns("team-a", "1000"));
        uids.onUpdate(ns("team-a", "1000"), ns("team-a", "3000"));
        assertThat(uids.claimants(1000)).isEmpty();
        assertThat(uids.claimants(3000)).containsExactly("team-a");
    }

    @Test
    void onUpdate_annotationRemovedOrInvalid_uidFreed() {
        uids.onAdd(ns("team-a", "1000"));
        uids.onUpdate(ns("team-a", "1000"), ns("team-a", "root"));
        assertThat(uids.of("team-a")).isEqualTo(new ClientUid.Invalid("root"));
        assertThat(uids.claimants(1000)).isEmpty();
        uids.onUpdate(ns("team-a", "root"), ns("team-a", null));
        assertThat(uids.of("team-a")).isEqualTo(ClientUid.UNBOUND);
    }

    @Test
    void onDelete_bound_uidFreed() {
        uids.onAdd(ns("team-a", "1000"));
        uids.onAdd(ns("team-x", "1000"));
        assertThat(uids.claimants(1000)).containsExactlyInAnyOrder("team-a", "team-x");
        uids.onDelete(ns("team-a", "1000"), false);
        assertThat(uids.claimants(1000)).containsExactly("team-x");
        assertThat(uids.of("team-a")).isEqualTo(ClientUid.UNBOUND);
        uids.onDelete(ns("team-x", "1000"), false);
        assertThat(uids.anyBound()).isFalse();
    }
}
