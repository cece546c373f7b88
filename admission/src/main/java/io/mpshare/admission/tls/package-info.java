/**
 * The webhook's TLS: a serving certificate from mounted PEM files, or a self-signed CA and serving certificate
 * made at start and kept in a Secret (so every replica serves the same one), and the CA bundle patched into the
 * Mutating/ValidatingWebhookConfigurations. BouncyCastle is used only here.
 */
package io.mpshare.admission.tls;
