//! HTTP/1.1 on a keep-alive connection: the request bytes, built once, and an incremental response
//! reader that finds where a response ends (Content-Length, chunked, or the connection's close),
//! reads its status and Server-Timing, and drops the body.

use crate::server_timing::{TimingNames, TimingReader, Timings};

/// One request, serialised once and written as-is for every send.
pub fn build_request(method: &str, path: &str, host: &str, headers: &[(String, String)], body: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(128 + body.len());
    out.extend_from_slice(format!("{method} {path} HTTP/1.1\r\nhost: {host}\r\n").as_bytes());
    let mut has_length = false;
    for (name, value) in headers {
        let lower = name.to_ascii_lowercase();
        // Framing is ours: the body below is sent with its own length; host is the target's.
        if lower == "host" || lower == "transfer-encoding" || lower == "connection" {
            continue;
        }
        has_length |= lower == "content-length";
        out.extend_from_slice(format!("{name}: {value}\r\n").as_bytes());
    }
    if !has_length && (!body.is_empty() || !matches!(method, "GET" | "HEAD" | "DELETE" | "OPTIONS")) {
        out.extend_from_slice(format!("content-length: {}\r\n", body.len()).as_bytes());
    }
    out.extend_from_slice(b"\r\n");
    out.extend_from_slice(body);
    out
}

/// A complete response, as far as the load engine cares.
#[derive(Debug, Clone, PartialEq)]
pub struct Response {
    pub status: u16,
    pub timings: Timings,
    /// The connection cannot carry another request (`Connection: close`, HTTP/1.0, or a body read to EOF).
    pub close: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParseError {
    /// The bytes are not an HTTP/1.x response (or a head larger than we accept).
    Malformed,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Chunk {
    /// Reading the hex size line (and any extension) up to its LF.
    Size {
        size: u64,
        digits: u32,
        in_ext: bool,
    },
    Data(u64),
    /// The CRLF after a chunk's data: bytes still to skip.
    DataEnd(u8),
    /// After the last chunk: trailer lines until an empty one. `line_len` counts the current line.
    Trailer {
        line_len: u32,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Body {
    Length(u64),
    Chunked(Chunk),
    UntilClose,
}

/// Heads larger than this are refused as malformed: a load target's headers are small.
const MAX_HEAD: usize = 64 * 1024;
const MAX_HEADERS: usize = 64;

/// Incremental reader of one response at a time. Feed it bytes as they arrive; it says when the
/// response is complete. The head is parsed from the read buffer in place; only a head split
/// across reads is copied.
pub struct ResponseReader {
    head: Vec<u8>,
    body: Option<Body>,
    pending: Option<Response>,
    /// Some bytes of this response have been seen (for "no response" versus "body stalled").
    started: bool,
    head_request: bool,
}

pub enum Progress {
    /// More bytes are needed.
    Partial,
    /// The response ended; `usize` bytes of the input were consumed (any rest is not ours).
    Done(Response, usize),
}

impl ResponseReader {
    pub fn new(head_request: bool) -> Self {
        ResponseReader {
            head: Vec::new(),
            body: None,
            pending: None,
            started: false,
            head_request,
        }
    }

    /// The next response answers a HEAD request (no body whatever its head says), or not: set
    /// per request, as a mix may hold both.
    pub fn set_head_request(&mut self, head_request: bool) {
        self.head_request = head_request;
    }

    pub fn started(&self) -> bool {
        self.started
    }

    pub fn reset(&mut self) {
        self.head.clear();
        self.body = None;
        self.pending = None;
        self.started = false;
    }

    /// The connection reached EOF: a body framed by the close ends here; anything else is cut short.
    pub fn eof(&mut self) -> Option<Response> {
        match (self.body, self.pending.take()) {
            (Some(Body::UntilClose), Some(r)) => {
                self.reset();
                Some(r)
            }
            _ => None,
        }
    }

    pub fn feed(&mut self, mut data: &[u8], names: &TimingNames) -> Result<Progress, ParseError> {
        let total = data.len();
        if !data.is_empty() {
            self.started = true;
        }
        loop {
            if self.body.is_none() {
                // Parse the head from the input directly when nothing is buffered (the usual case).
                let parsed = if self.head.is_empty() {
                    parse_head(data, names, self.head_request)?
                } else {
                    let before = self.head.len();
                    self.head.extend_from_slice(data);
                    parse_head(&self.head, names, self.head_request)?.map(|(r, body, used)| (r, body, used - before))
                };
                match parsed {
                    None => {
                        if self.head.is_empty() {
                            self.head.extend_from_slice(data);
                        }
                        if self.head.len() > MAX_HEAD {
                            return Err(ParseError::Malformed);
                        }
                        return Ok(Progress::Partial);
                    }
                    Some((r, body, used)) => {
                        self.head.clear();
                        data = &data[used..];
                        if r.status < 200 {
                            // 1xx (100 Continue…): an interim head, the real one follows.
                            continue;
                        }
                        match body {
                            None => {
                                self.reset();
                                return Ok(Progress::Done(r, total - data.len()));
                            }
                            Some(b) => {
                                self.body = Some(b);
                                self.pending = Some(r);
                            }
                        }
                    }
                }
            }
            let body = self.body.as_mut().expect("body framing set above");
            let (used, done) = advance_body(body, data)?;
            data = &data[used..];
            if done {
                let r = self.pending.take().expect("a response is pending while its body is read");
                self.reset();
                return Ok(Progress::Done(r, total - data.len()));
            }
            return Ok(Progress::Partial);
        }
    }
}

/// The head, if complete: the response, how its body is framed (None: no body), bytes used.
fn parse_head(buf: &[u8], names: &TimingNames, head_request: bool) -> Result<Option<(Response, Option<Body>, usize)>, ParseError> {
    let mut headers = [httparse::EMPTY_HEADER; MAX_HEADERS];
    let mut res = httparse::Response::new(&mut headers);
    let used = match res.parse(buf) {
        Ok(httparse::Status::Complete(n)) => n,
        Ok(httparse::Status::Partial) => return Ok(None),
        Err(_) => return Err(ParseError::Malformed),
    };
    let status = res.code.ok_or(ParseError::Malformed)?;
    let http10 = res.version == Some(0);
    let mut timings = TimingReader::new(names);
    let mut length: Option<u64> = None;
    let mut chunked = false;
    let mut close = http10;
    for h in res.headers.iter() {
        let name = h.name.as_bytes();
        if name.eq_ignore_ascii_case(b"server-timing") {
            timings.add(h.value);
        } else if name.eq_ignore_ascii_case(b"content-length") {
            let v = std::str::from_utf8(h.value).map_err(|_| ParseError::Malformed)?.trim();
            let n: u64 = v.parse().map_err(|_| ParseError::Malformed)?;
            if length.is_some_and(|l| l != n) {
                return Err(ParseError::Malformed);
            }
            length = Some(n);
        } else if name.eq_ignore_ascii_case(b"transfer-encoding") {
            chunked = has_token(h.value, b"chunked");
        } else if name.eq_ignore_ascii_case(b"connection") {
            if has_token(h.value, b"close") {
                close = true;
            } else if http10 && has_token(h.value, b"keep-alive") {
                close = false;
            }
        }
    }
    let no_body = head_request || status < 200 || status == 204 || status == 304;
    let body = if no_body {
        None
    } else if chunked {
        Some(Body::Chunked(Chunk::Size {
            size: 0,
            digits: 0,
            in_ext: false,
        }))
    } else if let Some(n) = length {
        if n == 0 {
            None
        } else {
            Some(Body::Length(n))
        }
    } else {
        close = true;
        Some(Body::UntilClose)
    };
    Ok(Some((
        Response {
            status,
            timings: timings.finish(),
            close,
        },
        body,
        used,
    )))
}

fn has_token(value: &[u8], token: &[u8]) -> bool {
    value.split(|&b| b == b',').any(|t| t.trim_ascii().eq_ignore_ascii_case(token))
}

/// Consumes body bytes; returns (bytes used, body complete).
fn advance_body(body: &mut Body, data: &[u8]) -> Result<(usize, bool), ParseError> {
    match body {
        Body::Length(left) => {
            let take = (*left).min(data.len() as u64);
            *left -= take;
            Ok((take as usize, *left == 0))
        }
        Body::UntilClose => Ok((data.len(), false)),
        Body::Chunked(state) => advance_chunked(state, data),
    }
}

fn advance_chunked(state: &mut Chunk, data: &[u8]) -> Result<(usize, bool), ParseError> {
    let mut i = 0;
    while i < data.len() {
        match state {
            Chunk::Size { size, digits, in_ext } => {
                let b = data[i];
                i += 1;
                if b == b'\n' {
                    if *digits == 0 {
                        return Err(ParseError::Malformed);
                    }
                    *state = if *size == 0 {
                        Chunk::Trailer { line_len: 0 }
                    } else {
                        Chunk::Data(*size)
                    };
                } else if *in_ext || b == b'\r' {
                    // extension or the CR before LF: skipped
                } else if b == b';' || b == b' ' || b == b'\t' {
                    *in_ext = true;
                } else {
                    let d = (b as char).to_digit(16).ok_or(ParseError::Malformed)?;
                    if *digits >= 15 {
                        return Err(ParseError::Malformed);
                    }
                    *size = *size * 16 + d as u64;
                    *digits += 1;
                }
            }
            Chunk::Data(left) => {
                let take = (*left).min((data.len() - i) as u64);
                *left -= take;
                i += take as usize;
                if *left == 0 {
                    *state = Chunk::DataEnd(2);
                }
            }
            Chunk::DataEnd(left) => {
                let b = data[i];
                i += 1;
                if b == b'\n' {
                    *state = Chunk::Size {
                        size: 0,
                        digits: 0,
                        in_ext: false,
                    };
                } else if b != b'\r' || *left == 1 {
                    return Err(ParseError::Malformed);
                } else {
                    *left -= 1;
                }
            }
            Chunk::Trailer { line_len } => {
                let b = data[i];
                i += 1;
                if b == b'\n' {
                    if *line_len == 0 {
                        return Ok((i, true));
                    }
                    *line_len = 0;
                } else if b != b'\r' {
                    *line_len += 1;
                }
            }
        }
    }
    Ok((i, false))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names() -> TimingNames {
        TimingNames::default()
    }

    /// Feeds `parts` in order; returns the response and the bytes left over in the last part.
    fn feed_all(parts: &[&[u8]]) -> Result<Option<(Response, usize)>, ParseError> {
        let mut r = ResponseReader::new(false);
        for (i, part) in parts.iter().enumerate() {
            if let Progress::Done(resp, used) = r.feed(part, &names())? {
                assert_eq!(i, parts.len() - 1, "done before the last part");
                return Ok(Some((resp, part.len() - used)));
            }
        }
        Ok(None)
    }

    #[test]
    fn content_length_in_one_read() {
        let (r, rest) = feed_all(&[b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\nserver-timing: queue;dur=1.5, compute;dur=3\r\n\r\nok"])
            .unwrap()
            .unwrap();
        assert_eq!(r.status, 200);
        assert_eq!(r.timings.queue_ms, Some(1.5));
        assert_eq!(r.timings.compute_ms, Some(3.0));
        assert!(!r.close);
        assert_eq!(rest, 0);
    }

    #[test]
    fn head_and_body_split_at_every_byte() {
        let msg = b"HTTP/1.1 503 Service Unavailable\r\nContent-Length: 5\r\nServer-Timing: queue;dur=2\r\nServer-Timing: compute;dur=4\r\n\r\nbusy!";
        for cut in 1..msg.len() {
            let (r, _) = feed_all(&[&msg[..cut], &msg[cut..]])
                .unwrap()
                .unwrap_or_else(|| panic!("incomplete at cut {cut}"));
            assert_eq!(
                (r.status, r.timings.queue_ms, r.timings.compute_ms),
                (503, Some(2.0), Some(4.0)),
                "cut {cut}"
            );
        }
        assert!(feed_all(&[&msg[..msg.len() - 1]]).unwrap().is_none());
    }

    #[test]
    fn chunked_with_extensions_and_trailers_split_at_every_byte() {
        let msg = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;ext=1\r\nhello\r\nA\r\n0123456789\r\n0\r\nx-trailer: y\r\n\r\n";
        for cut in 1..msg.len() {
            let got = feed_all(&[&msg[..cut], &msg[cut..]]).unwrap();
            let (r, rest) = got.unwrap_or_else(|| panic!("incomplete at cut {cut}"));
            assert_eq!((r.status, rest), (200, 0));
        }
        assert!(feed_all(&[&msg[..msg.len() - 2]]).unwrap().is_none());
    }

    #[test]
    fn bad_chunk_sizes_are_malformed() {
        assert_eq!(
            feed_all(&[b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\nzz\r\n"]).err(),
            Some(ParseError::Malformed)
        );
        assert_eq!(
            feed_all(&[b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n2\r\nabX"]).err(),
            Some(ParseError::Malformed)
        );
    }

    #[test]
    fn no_body_for_204_304_and_head() {
        let (r, _) = feed_all(&[b"HTTP/1.1 204 No Content\r\n\r\n"]).unwrap().unwrap();
        assert_eq!(r.status, 204);
        let (r, _) = feed_all(&[b"HTTP/1.1 304 Not Modified\r\ncontent-length: 10\r\n\r\n"])
            .unwrap()
            .unwrap();
        assert_eq!(r.status, 304);
        let mut head = ResponseReader::new(true);
        assert!(matches!(
            head.feed(b"HTTP/1.1 200 OK\r\ncontent-length: 10\r\n\r\n", &names()),
            Ok(Progress::Done(_, 39))
        ));
    }

    #[test]
    fn interim_100_continue_is_skipped() {
        let (r, rest) = feed_all(&[b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 Created\r\ncontent-length: 0\r\n\r\n"])
            .unwrap()
            .unwrap();
        assert_eq!((r.status, rest), (201, 0));
    }

    #[test]
    fn close_rules_http10_and_connection_header() {
        let (r, _) = feed_all(&[b"HTTP/1.1 200 OK\r\nConnection: keep-alive, close\r\ncontent-length: 0\r\n\r\n"])
            .unwrap()
            .unwrap();
        assert!(r.close);
        let (r, _) = feed_all(&[b"HTTP/1.0 200 OK\r\ncontent-length: 0\r\n\r\n"]).unwrap().unwrap();
        assert!(r.close);
        let (r, _) = feed_all(&[b"HTTP/1.0 200 OK\r\nConnection: Keep-Alive\r\ncontent-length: 0\r\n\r\n"])
            .unwrap()
            .unwrap();
        assert!(!r.close);
    }

    #[test]
    fn body_until_close_ends_at_eof() {
        let mut r = ResponseReader::new(false);
        assert!(matches!(
            r.feed(b"HTTP/1.1 200 OK\r\n\r\npart one", &names()),
            Ok(Progress::Partial)
        ));
        assert!(matches!(r.feed(b" and two", &names()), Ok(Progress::Partial)));
        let resp = r.eof().unwrap();
        assert!(resp.close);
        assert_eq!(resp.status, 200);
        // A response cut short by EOF is not a response.
        let mut cut = ResponseReader::new(false);
        assert!(matches!(
            cut.feed(b"HTTP/1.1 200 OK\r\ncontent-length: 9\r\n\r\nshort", &names()),
            Ok(Progress::Partial)
        ));
        assert!(cut.eof().is_none());
    }

    #[test]
    fn garbage_and_conflicting_lengths_are_malformed() {
        assert_eq!(feed_all(&[b"SSH-2.0-OpenSSH\r\n\r\n"]).err(), Some(ParseError::Malformed));
        assert_eq!(
            feed_all(&[b"HTTP/1.1 200 OK\r\ncontent-length: 1\r\ncontent-length: 2\r\n\r\n"]).err(),
            Some(ParseError::Malformed)
        );
        assert_eq!(
            feed_all(&[b"HTTP/1.1 200 OK\r\ncontent-length: x\r\n\r\n"]).err(),
            Some(ParseError::Malformed)
        );
    }

    #[test]
    fn reader_is_reusable_and_reports_leftover_bytes() {
        let mut r = ResponseReader::new(false);
        let two = b"HTTP/1.1 200 OK\r\ncontent-length: 1\r\n\r\naHTTP/1.1 404 Not Found\r\ncontent-length: 0\r\n\r\n";
        let Ok(Progress::Done(first, used)) = r.feed(two, &names()) else {
            panic!("first")
        };
        assert_eq!(first.status, 200);
        let Ok(Progress::Done(second, used2)) = r.feed(&two[used..], &names()) else {
            panic!("second")
        };
        assert_eq!((second.status, used + used2), (404, two.len()));
    }

    #[test]
    fn request_bytes() {
        let req = build_request(
            "POST",
            "/search?q=1",
            "127.0.0.1:8080",
            &[("x-a".into(), "1".into()), ("Host".into(), "evil".into())],
            b"{}",
        );
        assert_eq!(
            String::from_utf8(req).unwrap(),
            "POST /search?q=1 HTTP/1.1\r\nhost: 127.0.0.1:8080\r\nx-a: 1\r\ncontent-length: 2\r\n\r\n{}"
        );
        let get = build_request("GET", "/", "h", &[], b"");
        assert_eq!(get, b"GET / HTTP/1.1\r\nhost: h\r\n\r\n");
    }
}
