//! The TLS client setup for an `https://` target: one rustls `ClientConfig` per step, shared by
//! every worker (each connection is its own `ClientConnection`, driven by the worker's mio loop in
//! `worker/conn.rs`). Roots: the system's trust store plus `--ca-file`; `--insecure` accepts any
//! certificate (the handshake's signatures are still checked, so the keys are the server's).

use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::client::WebPkiServerVerifier;
use rustls::crypto::{ring, verify_tls12_signature, verify_tls13_signature, CryptoProvider};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{ClientConfig, DigitallySignedStruct, RootCertStore, SignatureScheme};
use std::sync::Arc;

/// What the flags say about TLS (set when the URL is https://).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TlsOptions {
    /// The URL's host without port or brackets: the SNI and the name the certificate must carry.
    pub server_name: String,
    pub insecure: bool,
    pub ca_file: Option<String>,
}

/// The host part of a URL authority (`host:port`, `[::1]:443`) as the certificate names it.
pub fn host_of(authority: &str) -> &str {
    if let Some(rest) = authority.strip_prefix('[') {
        return rest.split(']').next().unwrap_or(rest);
    }
    match authority.rsplit_once(':') {
        Some((h, p)) if p.bytes().all(|b| b.is_ascii_digit()) => h,
        _ => authority,
    }
}

/// The shared client config, or why it cannot be built (a setup failure: exit 1).
/// ALPN names, in our order of preference.
pub const ALPN_H2: &[u8] = b"h2";
pub const ALPN_HTTP11: &[u8] = b"http/1.1";

/// `alpn`: what the handshake offers — the step's one protocol, or both for `--http auto`'s probe.
pub fn client_config(o: &TlsOptions, alpn: &[&[u8]]) -> Result<Arc<ClientConfig>, String> {
    let provider = Arc::new(ring::default_provider());
    let builder = ClientConfig::builder_with_provider(provider.clone())
        .with_safe_default_protocol_versions()
        .map_err(|e| format!("TLS setup: {e}"))?;
    let (roots, pinned) = if o.insecure {
        (None, Vec::new())
    } else {
        let pinned = match o.ca_file.as_deref() {
            Some(path) => read_pem_certs(path)?,
            None => Vec::new(),
        };
        let store = Arc::new(roots(&pinned, o.ca_file.as_deref())?);
        let webpki = WebPkiServerVerifier::builder_with_provider(store, provider.clone())
            .build()
            .map_err(|e| format!("TLS setup: {e}"))?;
        (Some(webpki), pinned)
    };
    let policy = CertificatePolicy { roots, pinned, provider };
    let mut config = builder
        .dangerous()
        .with_custom_certificate_verifier(Arc::new(policy))
        .with_no_client_auth();
    // One protocol per step: a server that would pick h2 must answer an HTTP/1.1 step in HTTP/1.1.
    config.alpn_protocols = alpn.iter().map(|p| p.to_vec()).collect();
    Ok(Arc::new(config))
}

/// `--http auto` over TLS, before the step: one handshake offering h2 and http/1.1. True when
/// the server picks h2 (the step then offers only what it picked, so every connection agrees).
pub fn server_picks_h2(
    config: Arc<ClientConfig>,
    name: ServerName<'static>,
    addr: std::net::SocketAddr,
    timeout: std::time::Duration,
) -> Result<bool, String> {
    let mut sock = std::net::TcpStream::connect_timeout(&addr, timeout).map_err(|e| e.to_string())?;
    sock.set_read_timeout(Some(timeout)).map_err(|e| e.to_string())?;
    sock.set_write_timeout(Some(timeout)).map_err(|e| e.to_string())?;
    let mut conn = rustls::ClientConnection::new(config, name).map_err(|e| e.to_string())?;
    while conn.is_handshaking() {
        conn.complete_io(&mut sock).map_err(|e| e.to_string())?;
    }
    let h2 = conn.alpn_protocol() == Some(ALPN_H2);
    conn.send_close_notify();
    let _ = conn.complete_io(&mut sock);
    Ok(h2)
}

/// The name the handshake sends (SNI) and checks the certificate against.
pub fn server_name(o: &TlsOptions) -> Result<ServerName<'static>, String> {
    ServerName::try_from(o.server_name.clone()).map_err(|e| format!("--url: {:?} is not a TLS server name: {e}", o.server_name))
}

/// The system's roots (so a corporate CA installed there is trusted) plus the `--ca-file` PEM.
fn roots(ca: &[CertificateDer<'static>], ca_file: Option<&str>) -> Result<RootCertStore, String> {
    let mut roots = RootCertStore::empty();
    // Unreadable system certificates are skipped: an empty store still works with --ca-file.
    let native = rustls_native_certs::load_native_certs();
    roots.add_parsable_certificates(native.certs);
    if let Some(path) = ca_file {
        let (added, _) = roots.add_parsable_certificates(ca.iter().cloned());
        if added == 0 {
            return Err(format!("--ca-file: no usable certificate in {path}"));
        }
    }
    Ok(roots)
}

/// Which server certificates a step accepts. `roots: None` is `--insecure`: any certificate, any
/// name. Otherwise the roots' verdict, except that a server certificate given in `--ca-file` itself
/// is trusted as it is (as curl's `--cacert` does): webpki refuses a self-signed certificate that
/// says `CA:TRUE` (OpenSSL's `req -x509` default) as a server's own, even when it is a root.
/// The handshake's signatures are verified in every case, so the keys are the server's.
#[derive(Debug)]
struct CertificatePolicy {
    roots: Option<Arc<WebPkiServerVerifier>>,
    pinned: Vec<CertificateDer<'static>>,
    provider: Arc<CryptoProvider>,
}

impl ServerCertVerifier for CertificatePolicy {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp_response: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        let Some(roots) = &self.roots else {
            return Ok(ServerCertVerified::assertion());
        };
        match roots.verify_server_cert(end_entity, intermediates, server_name, ocsp_response, now) {
            Err(_) if self.pinned.iter().any(|p| p.as_ref() == end_entity.as_ref()) => Ok(ServerCertVerified::assertion()),
            verdict => verdict,
        }
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls12_signature(message, cert, dss, &self.provider.signature_verification_algorithms)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls13_signature(message, cert, dss, &self.provider.signature_verification_algorithms)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.provider.signature_verification_algorithms.supported_schemes()
    }
}

fn read_pem_certs(path: &str) -> Result<Vec<CertificateDer<'static>>, String> {
    let certs = CertificateDer::pem_file_iter(path)
        .map_err(|e| format!("--ca-file: cannot read {path}: {e}"))?
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| format!("--ca-file: {path} is not PEM certificates: {e}"))?;
    if certs.is_empty() {
        return Err(format!("--ca-file: no certificate in {path}"));
    }
    Ok(certs)
}

/// Handshake durations of a step, kept whole (one per connection opened): count, p50, max.
#[derive(Default)]
pub struct HandshakeStats {
    pub us: Vec<u32>,
}

impl HandshakeStats {
    pub fn add(&mut self, ns: u64) {
        self.us.push((ns / 1_000).min(u32::MAX as u64) as u32);
    }

    pub fn merge(&mut self, other: &HandshakeStats) {
        self.us.extend_from_slice(&other.us);
    }

    /// (count, p50 ms, p99 ms, max ms); the percentiles are nearest-rank on the sorted µs.
    pub fn summary(&mut self) -> (usize, f64, f64, f64) {
        if self.us.is_empty() {
            return (0, f64::NAN, f64::NAN, f64::NAN);
        }
        self.us.sort_unstable();
        let n = self.us.len();
        let rank = |p: f64| self.us[((p / 100.0 * n as f64).ceil() as usize).clamp(1, n) - 1] as f64 / 1000.0;
        (n, rank(50.0), rank(99.0), self.us[n - 1] as f64 / 1000.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_without_port_or_brackets() {
        assert_eq!(host_of("example.com:8443"), "example.com");
        assert_eq!(host_of("example.com"), "example.com");
        assert_eq!(host_of("[::1]:443"), "::1");
        assert_eq!(host_of("127.0.0.1:9"), "127.0.0.1");
    }

    #[test]
    fn config_offers_the_alpn_asked_for() {
        let o = TlsOptions {
            server_name: "localhost".into(),
            ..Default::default()
        };
        let c = client_config(&o, &[ALPN_HTTP11]).unwrap();
        assert_eq!(c.alpn_protocols, vec![b"http/1.1".to_vec()]);
        assert!(server_name(&o).is_ok());
        let insecure = client_config(&TlsOptions { insecure: true, ..o }, &[ALPN_H2, ALPN_HTTP11]).unwrap();
        assert_eq!(insecure.alpn_protocols, vec![b"h2".to_vec(), b"http/1.1".to_vec()]);
    }

    #[test]
    fn ca_file_errors_name_the_flag() {
        let dir = std::env::temp_dir().join(format!("kb-tls-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let empty = dir.join("empty.pem");
        std::fs::write(&empty, "not a certificate\n").unwrap();
        let o = |p: &std::path::Path| TlsOptions {
            server_name: "localhost".into(),
            insecure: false,
            ca_file: Some(p.to_string_lossy().into_owned()),
        };
        let missing = client_config(&o(&dir.join("missing.pem")), &[ALPN_HTTP11]).unwrap_err();
        assert!(missing.starts_with("--ca-file: cannot read"), "{missing}");
        let none = client_config(&o(&empty), &[ALPN_HTTP11]).unwrap_err();
        assert!(none.starts_with("--ca-file: no certificate"), "{none}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn handshake_summary() {
        let mut s = HandshakeStats::default();
        assert_eq!(s.summary().0, 0);
        for us in [3_000u64, 1_000, 2_000, 10_000] {
            s.add(us * 1_000);
        }
        let mut other = HandshakeStats::default();
        other.add(4_000_000);
        s.merge(&other);
        assert_eq!(s.summary(), (5, 3.0, 10.0, 10.0));
    }
}
