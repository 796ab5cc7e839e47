//! Why a request failed below HTTP, as the short words the Node engine and the SDK use
//! (`ECONNREFUSED`, `no response in time`…). The index + 1 is the event's `kind` byte.

use std::io;

pub const ERROR_KINDS: &[&str] = &[
    "ECONNREFUSED",
    "ECONNRESET",
    "EPIPE",
    "EMFILE",
    "ENFILE",
    "EADDRNOTAVAIL",
    "ETIMEDOUT",
    "EHOSTUNREACH",
    "ENETUNREACH",
    "connect timeout",
    "no response in time",
    "response body stalled",
    "connection closed by the other side",
    "malformed response",
    "socket error",
    "certificate not trusted",
    "TLS error",
    "HTTP/2 stream reset",
    "HTTP/2 protocol error",
];

pub const CONNECT_TIMEOUT: u8 = 10;
pub const NO_RESPONSE: u8 = 11;
pub const BODY_STALLED: u8 = 12;
pub const CLOSED_BY_PEER: u8 = 13;
pub const MALFORMED: u8 = 14;
const OTHER: u8 = 15;
pub const CERT_UNTRUSTED: u8 = 16;
pub const TLS_FAILED: u8 = 17;
/// The server reset the stream (RST_STREAM other than REFUSED_STREAM, which is retried).
pub const H2_RESET: u8 = 18;
/// A connection-level HTTP/2 failure: bad frames or header blocks, or no h2 from ALPN.
pub const H2_PROTOCOL: u8 = 19;

/// The kind byte of a TLS failure: a certificate the roots do not vouch for (or for another
/// name) is its own kind, so the CLI can say "pass --insecure or --ca-file".
pub fn tls_kind(e: &rustls::Error) -> u8 {
    match e {
        rustls::Error::InvalidCertificate(_) => CERT_UNTRUSTED,
        _ => TLS_FAILED,
    }
}

/// The kind byte of an I/O error.
pub fn kind_of(e: &io::Error) -> u8 {
    match e.raw_os_error() {
        Some(libc::ECONNREFUSED) => 1,
        Some(libc::ECONNRESET) => 2,
        Some(libc::EPIPE) => 3,
        Some(libc::EMFILE) => 4,
        Some(libc::ENFILE) => 5,
        Some(libc::EADDRNOTAVAIL) => 6,
        Some(libc::ETIMEDOUT) => 7,
        Some(libc::EHOSTUNREACH) => 8,
        Some(libc::ENETUNREACH) => 9,
        _ => match e.kind() {
            io::ErrorKind::UnexpectedEof => CLOSED_BY_PEER,
            _ => OTHER,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn os_errors_map_to_their_names() {
        let name = |k: u8| ERROR_KINDS[k as usize - 1];
        assert_eq!(name(kind_of(&io::Error::from_raw_os_error(libc::ECONNREFUSED))), "ECONNREFUSED");
        assert_eq!(name(kind_of(&io::Error::from_raw_os_error(libc::EMFILE))), "EMFILE");
        assert_eq!(
            name(kind_of(&io::Error::from(io::ErrorKind::UnexpectedEof))),
            "connection closed by the other side"
        );
        assert_eq!(name(NO_RESPONSE), "no response in time");
        assert_eq!(name(MALFORMED), "malformed response");
        let untrusted = rustls::Error::InvalidCertificate(rustls::CertificateError::UnknownIssuer);
        assert_eq!(name(tls_kind(&untrusted)), "certificate not trusted");
        assert_eq!(name(tls_kind(&rustls::Error::DecryptError)), "TLS error");
        assert_eq!(name(H2_RESET), "HTTP/2 stream reset");
        assert_eq!(name(H2_PROTOCOL), "HTTP/2 protocol error");
    }
}
