//! HTTP/2 for the load engine: HPACK, framing and a client session without I/O, driven by the
//! worker's mio loop like HTTP/1.1 (see README.md, "HTTP/2").

pub mod frame;
pub mod hpack;
pub mod session;
mod tables;
pub mod watermark;

pub use session::{build_request, Outcome, Requests, Session};
