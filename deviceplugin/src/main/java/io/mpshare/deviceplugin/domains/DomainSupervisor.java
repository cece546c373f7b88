package io.mpshare.deviceplugin.domains;

import java.util.List;

/**
 * One colour's MPS supervisor, as the domain controller needs it: the domains it runs, and a domain created or changed
 * ({@code PUT /domains/{id}}) or drained ({@code DELETE /domains/{id}}). Every call throws {@code MpsException} when the
 * supervisor does not answer or refuses.
 */
public interface DomainSupervisor {
    /** Every domain the supervisor runs, as it last published them. */
    List<DomainReport> domains();

    /** Starts the domain's daemon when absent, else applies a changed ceiling and thread share; the domain as it stands after. */
    DomainReport put(String id, DomainAsk ask);

    /** The domain drains: its daemon quits once its last client has left. Deleting one that is gone is harmless. */
    void delete(String id);
}
