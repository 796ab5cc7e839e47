//! One HTTP/2 client connection as a state machine without I/O: bytes from the server go in
//! (`on_bytes`), the bytes to send accumulate in `out`, and each stream's end comes back as an
//! `Outcome`. The worker (`worker/h2conn.rs`) moves the bytes between it and the socket (plain,
//! or through rustls) in its mio loop, as it does for HTTP/1.1.
//!
//! What a load client needs of RFC 9113, and no more: the preface and SETTINGS (push off, the
//! largest stream window, the connection window opened wide, so the server is never held back by
//! us), request HEADERS (+ CONTINUATION) and a body in DATA frames within the server's flow-control
//! windows, responses read for `:status` and Server-Timing with the body counted and dropped,
//! PING answered, RST_STREAM and GOAWAY turned into failed or retried requests. No priorities, no
//! push, no server-initiated streams.

use super::frame::{self, Frame, FrameReader, FrameTooLarge};
use super::hpack::{self, Decoder, Encoder};
use crate::errors;
use crate::server_timing::{TimingNames, TimingReader, Timings};
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::Arc;

const SETTINGS_HEADER_TABLE_SIZE: u16 = 0x1;
const SETTINGS_ENABLE_PUSH: u16 = 0x2;
const SETTINGS_MAX_CONCURRENT_STREAMS: u16 = 0x3;
const SETTINGS_INITIAL_WINDOW_SIZE: u16 = 0x4;
const SETTINGS_MAX_FRAME_SIZE: u16 = 0x5;
const REFUSED_STREAM: u32 = 0x7;
const CANCEL: u32 = 0x8;
const MAX_WINDOW: u32 = (1 << 31) - 1;
/// Our windows are refilled once this much of them is used: in practice never for a stream.
const REFILL_AT: u32 = 1 << 30;

/// The request every stream sends, built once per step: the header fields in HTTP/2 form
/// (pseudo-headers first, lower-case names, no connection-specific fields) and the body.
pub struct Request {
    pub fields: Vec<(Vec<u8>, Vec<u8>)>,
    pub body: Vec<u8>,
}

pub fn build_request(method: &str, https: bool, authority: &str, path: &str, headers: &[(String, String)], body: &[u8]) -> Request {
    let mut fields: Vec<(Vec<u8>, Vec<u8>)> = vec![
        (b":method".to_vec(), method.as_bytes().to_vec()),
        (b":scheme".to_vec(), if https { b"https".to_vec() } else { b"http".to_vec() }),
        (b":authority".to_vec(), authority.as_bytes().to_vec()),
        (b":path".to_vec(), path.as_bytes().to_vec()),
    ];
    let mut has_length = false;
    for (name, value) in headers {
        let lower = name.to_ascii_lowercase();
        // HTTP/2 forbids the connection-specific fields (RFC 9113 §8.2.2); host is :authority.
        if matches!(
            lower.as_str(),
            "host" | "connection" | "keep-alive" | "proxy-connection" | "transfer-encoding" | "upgrade"
        ) || (lower == "te" && !value.eq_ignore_ascii_case("trailers"))
        {
            continue;
        }
        has_length |= lower == "content-length";
        fields.push((lower.into_bytes(), value.as_bytes().to_vec()));
    }
    if !has_length && (!body.is_empty() || !matches!(method, "GET" | "HEAD" | "DELETE" | "OPTIONS")) {
        fields.push((b"content-length".to_vec(), body.len().to_string().into_bytes()));
    }
    Request {
        fields,
        body: body.to_vec(),
    }
}

/// The step's requests: one, or a `--requests-file` mix (picked per stream by the worker).
pub struct Requests {
    pub list: Vec<Request>,
    /// A mix: each request's header block, built once with `hpack::encode_stateless` (static
    /// indices and literals without indexing), so it is right on any connection whatever the
    /// other requests did to the dynamic table. None for one request: its block goes through the
    /// dynamic table once and is then a few cached index bytes (the fast path, unchanged).
    pub blocks: Option<Vec<Vec<u8>>>,
}

impl Requests {
    pub fn one(request: Request) -> Requests {
        Requests {
            list: vec![request],
            blocks: None,
        }
    }

    pub fn mix(list: Vec<Request>) -> Requests {
        let blocks = list
            .iter()
            .map(|r| {
                let mut b = Vec::with_capacity(128);
                hpack::encode_stateless(r.fields.iter().map(|(n, v)| (n.as_slice(), v.as_slice())), &mut b);
                b
            })
            .collect();
        Requests {
            list,
            blocks: Some(blocks),
        }
    }
}

/// How a stream ended, for the worker to record (`request`: its index in the mix, 0 without one).
#[derive(Debug, PartialEq)]
pub enum Outcome {
    Done {
        intended_ns: u64,
        sent_ns: Option<u64>,
        request: u16,
        status: u16,
        timings: Timings,
    },
    Failed {
        intended_ns: u64,
        sent_ns: Option<u64>,
        request: u16,
        kind: u8,
    },
    /// The server did not process it (REFUSED_STREAM, or past a GOAWAY's last stream): it may be
    /// sent again, on another connection, still timed from its intended start.
    Retry { intended_ns: u64, sent_ns: Option<u64> },
}

struct Stream {
    intended_ns: u64,
    /// Its index in the step's requests.
    request: u16,
    sent_ns: Option<u64>,
    /// The last frame of this stream, either way: the timeout counts from here.
    last_ns: u64,
    /// 0 until the final (non-1xx) response head.
    status: u16,
    timings: Timings,
    send_window: i64,
    body_sent: usize,
    recv_used: u32,
}

/// Stream ids are distinct small integers: a multiplicative hash is enough (SipHash is not needed).
#[derive(Default)]
struct IdHasher(u64);

impl Hasher for IdHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 << 8 | b as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }
    fn write_u32(&mut self, n: u32) {
        self.0 = (n as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

/// A connection-level failure: the kind every stream still open fails with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConnError(pub u8);

impl From<FrameTooLarge> for ConnError {
    fn from(_: FrameTooLarge) -> Self {
        ConnError(errors::H2_PROTOCOL)
    }
}

pub struct Session {
    requests: Arc<Requests>,
    /// Bytes to write to the server, in order.
    pub out: Vec<u8>,
    reader: FrameReader,
    decoder: Decoder,
    encoder: Encoder,
    /// The request's header block once it is all indices (the same bytes every time after).
    cached_block: Option<Vec<u8>>,
    streams: HashMap<u32, Stream, BuildHasherDefault<IdHasher>>,
    /// Streams whose HEADERS are in `out` but not yet handed to the socket.
    unsent: Vec<u32>,
    /// Streams with body bytes waiting for flow-control window.
    blocked: Vec<u32>,
    next_id: u32,
    ready: bool,
    goaway: bool,
    peer_max_streams: usize,
    peer_initial_window: i64,
    peer_max_frame: usize,
    send_window: i64,
    recv_used: u32,
    /// A header block continued in CONTINUATION frames: (stream, END_STREAM, the block so far).
    continuation: Option<(u32, bool, Vec<u8>)>,
}

impl Session {
    /// A new connection: the preface, our SETTINGS and the connection window's update are queued.
    pub fn new(requests: Arc<Requests>) -> Session {
        let mut out = Vec::with_capacity(1024);
        out.extend_from_slice(frame::PREFACE);
        frame::write_settings(
            &mut out,
            &[
                (SETTINGS_ENABLE_PUSH, 0),
                (SETTINGS_INITIAL_WINDOW_SIZE, MAX_WINDOW),
                (SETTINGS_HEADER_TABLE_SIZE, 4096),
            ],
        );
        frame::write_window_update(&mut out, 0, MAX_WINDOW - 65_535);
        Session {
            requests,
            out,
            reader: FrameReader::default(),
            decoder: Decoder::new(4096),
            encoder: Encoder::new(),
            cached_block: None,
            streams: HashMap::default(),
            unsent: Vec::new(),
            blocked: Vec::new(),
            next_id: 1,
            ready: false,
            goaway: false,
            peer_max_streams: usize::MAX,
            peer_initial_window: 65_535,
            peer_max_frame: 16_384,
            send_window: 65_535,
            recv_used: 0,
            continuation: None,
        }
    }

    /// The server's SETTINGS have arrived: its stream limit is known.
    pub fn ready(&self) -> bool {
        self.ready
    }

    /// No new stream may start here (GOAWAY, or stream ids used up): the worker opens another.
    pub fn closing(&self) -> bool {
        self.goaway
    }

    pub fn active(&self) -> usize {
        self.streams.len()
    }

    /// SETTINGS_MAX_CONCURRENT_STREAMS (unlimited until the server says).
    pub fn max_streams(&self) -> usize {
        self.peer_max_streams
    }

    /// Starts a stream for request `request` of the step's requests: HEADERS (and as much body as
    /// the windows allow) into `out`.
    pub fn open(&mut self, intended_ns: u64, now: u64, request: u16) -> u32 {
        let id = self.next_id;
        self.next_id += 2;
        if self.next_id > MAX_WINDOW {
            self.goaway = true; // ids used up: this connection takes no more
        }
        let requests = self.requests.clone();
        if let Some(blocks) = &requests.blocks {
            // A mix: the request's own block, built once; only a due table size update goes first.
            let block = &blocks[request as usize];
            let end_stream = requests.list[request as usize].body.is_empty();
            let mut update = Vec::new();
            if self.encoder.write_pending_update(&mut update) {
                update.extend_from_slice(block);
                self.write_headers(id, &update, end_stream);
            } else {
                self.write_headers(id, block, end_stream);
            }
            return self.started(id, intended_ns, now, request);
        }
        let one = &requests.list[0];
        // The first requests insert their fields into the table; once a block changed nothing it
        // is all indices, and the same bytes serve every later request.
        let block = match self.cached_block.take() {
            Some(b) => b,
            None => {
                let mut b = Vec::with_capacity(128);
                let fields = one.fields.iter().map(|(n, v)| (n.as_slice(), v.as_slice()));
                if self.encoder.encode(fields, &mut b) {
                    self.write_headers(id, &b, one.body.is_empty());
                    return self.started(id, intended_ns, now, 0);
                }
                b
            }
        };
        self.write_headers(id, &block, one.body.is_empty());
        self.cached_block = Some(block);
        self.started(id, intended_ns, now, 0)
    }

    fn started(&mut self, id: u32, intended_ns: u64, now: u64, request: u16) -> u32 {
        self.streams.insert(
            id,
            Stream {
                intended_ns,
                request,
                sent_ns: None,
                last_ns: now,
                status: 0,
                timings: Timings {
                    compute_ms: None,
                    queue_ms: None,
                    unparseable: 0,
                },
                send_window: self.peer_initial_window,
                body_sent: 0,
                recv_used: 0,
            },
        );
        self.unsent.push(id);
        if !self.requests.list[request as usize].body.is_empty() {
            self.send_body(id);
        }
        id
    }

    fn write_headers(&mut self, id: u32, block: &[u8], end_stream: bool) {
        let es = if end_stream { frame::END_STREAM } else { 0 };
        let mut chunks = block.chunks(self.peer_max_frame.max(1)).peekable();
        let first = chunks.next().unwrap_or(&[]);
        let last = chunks.peek().is_none();
        frame::write_header(
            &mut self.out,
            first.len(),
            frame::HEADERS,
            es | if last { frame::END_HEADERS } else { 0 },
            id,
        );
        self.out.extend_from_slice(first);
        while let Some(c) = chunks.next() {
            let last = chunks.peek().is_none();
            frame::write_header(
                &mut self.out,
                c.len(),
                frame::CONTINUATION,
                if last { frame::END_HEADERS } else { 0 },
                id,
            );
            self.out.extend_from_slice(c);
        }
    }

    /// As much of the stream's body as both windows and the frame size allow; the rest waits.
    fn send_body(&mut self, id: u32) {
        let requests = self.requests.clone();
        let Some(s) = self.streams.get_mut(&id) else { return };
        let body = &requests.list[s.request as usize].body;
        while s.body_sent < body.len() {
            let room = self.send_window.min(s.send_window).min(self.peer_max_frame as i64);
            if room <= 0 {
                if !self.blocked.contains(&id) {
                    self.blocked.push(id);
                }
                return;
            }
            let n = (room as usize).min(body.len() - s.body_sent);
            let end = s.body_sent + n == body.len();
            frame::write_header(&mut self.out, n, frame::DATA, if end { frame::END_STREAM } else { 0 }, id);
            self.out.extend_from_slice(&body[s.body_sent..s.body_sent + n]);
            s.body_sent += n;
            s.send_window -= n as i64;
            self.send_window -= n as i64;
        }
    }

    /// The queued bytes are being written: streams started since the last write are sent now.
    /// Returns how many (they are on the wire from here).
    pub fn mark_sent(&mut self, now: u64) -> usize {
        let n = self.unsent.len();
        for id in self.unsent.drain(..) {
            if let Some(s) = self.streams.get_mut(&id) {
                s.sent_ns = Some(now);
                s.last_ns = now;
            }
        }
        n
    }

    /// Bytes from the server. Completed, failed and refused streams are appended to `done`; an
    /// error is a connection error (the worker then fails every stream with `fail_all`).
    pub fn on_bytes(&mut self, data: &[u8], now: u64, names: &TimingNames, done: &mut Vec<Outcome>) -> Result<(), ConnError> {
        let mut reader = std::mem::take(&mut self.reader);
        let r = reader.feed(data, |f| self.on_frame(f, now, names, done));
        self.reader = reader;
        r
    }

    fn on_frame(&mut self, f: Frame<'_>, now: u64, names: &TimingNames, done: &mut Vec<Outcome>) -> Result<(), ConnError> {
        let protocol = ConnError(errors::H2_PROTOCOL);
        if self.continuation.is_some() && f.ty != frame::CONTINUATION {
            return Err(protocol);
        }
        match f.ty {
            frame::DATA => {
                if f.stream == 0 {
                    return Err(protocol);
                }
                self.recv_used += f.len as u32;
                if self.recv_used >= REFILL_AT {
                    frame::write_window_update(&mut self.out, 0, self.recv_used);
                    self.recv_used = 0;
                }
                if let Some(s) = self.streams.get_mut(&f.stream) {
                    s.last_ns = now;
                    s.recv_used += f.len as u32;
                    if s.recv_used >= REFILL_AT {
                        frame::write_window_update(&mut self.out, f.stream, s.recv_used);
                        s.recv_used = 0;
                    }
                    if f.flags & frame::END_STREAM != 0 {
                        self.finish(f.stream, done);
                    }
                }
            }
            frame::HEADERS => {
                if f.stream == 0 {
                    return Err(protocol);
                }
                let mut p = f.payload;
                let mut pad = 0;
                if f.flags & frame::PADDED != 0 {
                    let (&n, rest) = p.split_first().ok_or(protocol)?;
                    pad = n as usize;
                    p = rest;
                }
                if f.flags & frame::PRIORITY != 0 {
                    p = p.get(5..).ok_or(protocol)?;
                }
                let block = p.get(..p.len().checked_sub(pad).ok_or(protocol)?).ok_or(protocol)?;
                let end_stream = f.flags & frame::END_STREAM != 0;
                if f.flags & frame::END_HEADERS != 0 {
                    self.on_block(f.stream, block, end_stream, now, names, done)?;
                } else {
                    self.continuation = Some((f.stream, end_stream, block.to_vec()));
                }
            }
            frame::CONTINUATION => {
                let Some((stream, end_stream, mut block)) = self.continuation.take() else {
                    return Err(protocol);
                };
                if stream != f.stream {
                    return Err(protocol);
                }
                block.extend_from_slice(f.payload);
                if f.flags & frame::END_HEADERS != 0 {
                    self.on_block(stream, &block, end_stream, now, names, done)?;
                } else {
                    self.continuation = Some((stream, end_stream, block));
                }
            }
            frame::RST_STREAM => {
                let code = f
                    .payload
                    .get(..4)
                    .map(|b| u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
                    .ok_or(protocol)?;
                if let Some(s) = self.remove(f.stream) {
                    done.push(if code == REFUSED_STREAM {
                        Outcome::Retry {
                            intended_ns: s.intended_ns,
                            sent_ns: s.sent_ns,
                        }
                    } else {
                        Outcome::Failed {
                            intended_ns: s.intended_ns,
                            sent_ns: s.sent_ns,
                            request: s.request,
                            kind: errors::H2_RESET,
                        }
                    });
                }
            }
            frame::SETTINGS => {
                if f.flags & frame::ACK != 0 {
                    return Ok(());
                }
                if f.stream != 0 || !f.payload.len().is_multiple_of(6) {
                    return Err(protocol);
                }
                for p in f.payload.chunks_exact(6) {
                    let id = u16::from_be_bytes([p[0], p[1]]);
                    let v = u32::from_be_bytes([p[2], p[3], p[4], p[5]]);
                    match id {
                        SETTINGS_HEADER_TABLE_SIZE => {
                            self.encoder.set_peer_max(v as usize);
                            self.cached_block = None;
                        }
                        SETTINGS_MAX_CONCURRENT_STREAMS => self.peer_max_streams = v as usize,
                        SETTINGS_INITIAL_WINDOW_SIZE => {
                            if v > MAX_WINDOW {
                                return Err(protocol);
                            }
                            let delta = v as i64 - self.peer_initial_window;
                            self.peer_initial_window = v as i64;
                            for s in self.streams.values_mut() {
                                s.send_window += delta;
                            }
                        }
                        SETTINGS_MAX_FRAME_SIZE => {
                            if !(16_384..=16_777_215).contains(&v) {
                                return Err(protocol);
                            }
                            self.peer_max_frame = v as usize;
                        }
                        _ => {}
                    }
                }
                frame::write_header(&mut self.out, 0, frame::SETTINGS, frame::ACK, 0);
                self.ready = true;
                self.resume_blocked();
            }
            frame::PING if f.flags & frame::ACK == 0 => {
                if f.payload.len() != 8 {
                    return Err(protocol);
                }
                frame::write_header(&mut self.out, 8, frame::PING, frame::ACK, 0);
                self.out.extend_from_slice(f.payload);
            }
            frame::GOAWAY => {
                let last = f
                    .payload
                    .get(..4)
                    .map(|b| u32::from_be_bytes([b[0], b[1], b[2], b[3]]) & 0x7fff_ffff)
                    .ok_or(protocol)?;
                self.goaway = true;
                // Streams past `last` were not processed: they go again elsewhere.
                let refused: Vec<u32> = self.streams.keys().copied().filter(|&id| id > last).collect();
                for id in refused {
                    if let Some(s) = self.remove(id) {
                        done.push(Outcome::Retry {
                            intended_ns: s.intended_ns,
                            sent_ns: s.sent_ns,
                        });
                    }
                }
            }
            frame::WINDOW_UPDATE => {
                let inc = f
                    .payload
                    .get(..4)
                    .map(|b| u32::from_be_bytes([b[0], b[1], b[2], b[3]]) & 0x7fff_ffff)
                    .ok_or(protocol)?;
                if f.stream == 0 {
                    self.send_window += inc as i64;
                } else if let Some(s) = self.streams.get_mut(&f.stream) {
                    s.send_window += inc as i64;
                }
                self.resume_blocked();
            }
            // Push is off (ENABLE_PUSH 0): a promise is the server breaking the protocol.
            frame::PUSH_PROMISE => return Err(protocol),
            _ => {} // PRIORITY and unknown types are ignored (§5.5)
        }
        Ok(())
    }

    /// A whole header block. It is decoded even for a stream we no longer track (the table must
    /// stay in step); for ours, the first final head gives the status and the Server-Timing.
    fn on_block(
        &mut self,
        id: u32,
        block: &[u8],
        end_stream: bool,
        now: u64,
        names: &TimingNames,
        done: &mut Vec<Outcome>,
    ) -> Result<(), ConnError> {
        let mut status: Option<u16> = None;
        let mut timings = TimingReader::new(names);
        self.decoder
            .decode(
                block,
                |n| n == b":status" || n == b"server-timing",
                |n, v| {
                    if n == b":status" {
                        status = std::str::from_utf8(v).ok().and_then(|s| s.parse().ok());
                    } else {
                        timings.add(v);
                    }
                },
            )
            .map_err(|_| ConnError(errors::H2_PROTOCOL))?;
        let Some(s) = self.streams.get_mut(&id) else { return Ok(()) };
        s.last_ns = now;
        if s.status == 0 {
            match status {
                Some(code @ 200..=999) => {
                    s.status = code;
                    s.timings = timings.finish();
                }
                Some(100..=199) if !end_stream => return Ok(()), // interim (100 Continue…)
                _ => {
                    // A first head without a usable status: this response is malformed.
                    let s = self.remove(id).expect("looked up above");
                    frame::write_rst_stream(&mut self.out, id, CANCEL);
                    done.push(Outcome::Failed {
                        intended_ns: s.intended_ns,
                        sent_ns: s.sent_ns,
                        request: s.request,
                        kind: errors::MALFORMED,
                    });
                    return Ok(());
                }
            }
        }
        if end_stream {
            self.finish(id, done);
        }
        Ok(())
    }

    /// END_STREAM from the server: the response is whole (or malformed if it had no head).
    fn finish(&mut self, id: u32, done: &mut Vec<Outcome>) {
        let Some(s) = self.remove(id) else { return };
        done.push(if s.status == 0 {
            Outcome::Failed {
                intended_ns: s.intended_ns,
                sent_ns: s.sent_ns,
                request: s.request,
                kind: errors::MALFORMED,
            }
        } else {
            Outcome::Done {
                intended_ns: s.intended_ns,
                sent_ns: s.sent_ns,
                request: s.request,
                status: s.status,
                timings: s.timings,
            }
        });
    }

    fn remove(&mut self, id: u32) -> Option<Stream> {
        let s = self.streams.remove(&id)?;
        if !self.blocked.is_empty() {
            self.blocked.retain(|&b| b != id);
        }
        Some(s)
    }

    fn resume_blocked(&mut self) {
        for id in std::mem::take(&mut self.blocked) {
            self.send_body(id);
        }
    }

    /// Streams with nothing from the server for `timeout_ns`: failed (no response, or the body
    /// stalled), and reset so the server can forget them too.
    pub fn expire(&mut self, now: u64, timeout_ns: u64, done: &mut Vec<Outcome>) {
        let late: Vec<u32> = self
            .streams
            .iter()
            .filter(|(_, s)| now.saturating_sub(s.last_ns) >= timeout_ns)
            .map(|(&id, _)| id)
            .collect();
        for id in late {
            let s = self.remove(id).expect("listed above");
            frame::write_rst_stream(&mut self.out, id, CANCEL);
            done.push(Outcome::Failed {
                intended_ns: s.intended_ns,
                sent_ns: s.sent_ns,
                request: s.request,
                kind: if s.status == 0 { errors::NO_RESPONSE } else { errors::BODY_STALLED },
            });
        }
    }

    /// The connection is gone: every stream still open fails with `kind`.
    pub fn fail_all(&mut self, kind: u8, done: &mut Vec<Outcome>) {
        for (_, s) in self.streams.drain() {
            done.push(Outcome::Failed {
                intended_ns: s.intended_ns,
                sent_ns: s.sent_ns,
                request: s.request,
                kind,
            });
        }
        self.unsent.clear();
        self.blocked.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::h2::hpack;

    fn names() -> TimingNames {
        TimingNames::default()
    }

    /// A server's frames, for feeding the session.
    struct Server {
        enc: hpack::Encoder,
        bytes: Vec<u8>,
    }

    impl Server {
        fn new() -> Server {
            Server {
                enc: hpack::Encoder::new(),
                bytes: Vec::new(),
            }
        }
        fn settings(&mut self, params: &[(u16, u32)]) -> &mut Self {
            frame::write_settings(&mut self.bytes, params);
            self
        }
        fn head(&mut self, id: u32, fields: &[(&str, &str)], end_stream: bool) -> &mut Self {
            let mut block = Vec::new();
            self.enc
                .encode(fields.iter().map(|(n, v)| (n.as_bytes(), v.as_bytes())), &mut block);
            let flags = frame::END_HEADERS | if end_stream { frame::END_STREAM } else { 0 };
            frame::write_header(&mut self.bytes, block.len(), frame::HEADERS, flags, id);
            self.bytes.extend_from_slice(&block);
            self
        }
        fn data(&mut self, id: u32, body: &[u8], end_stream: bool) -> &mut Self {
            frame::write_header(
                &mut self.bytes,
                body.len(),
                frame::DATA,
                if end_stream { frame::END_STREAM } else { 0 },
                id,
            );
            self.bytes.extend_from_slice(body);
            self
        }
        fn take(&mut self) -> Vec<u8> {
            std::mem::take(&mut self.bytes)
        }
    }

    fn request(body: &[u8]) -> Arc<Requests> {
        Arc::new(Requests::one(build_request(
            if body.is_empty() { "GET" } else { "POST" },
            false,
            "127.0.0.1:8080",
            "/x",
            &[("X-A".into(), "1".into()), ("Connection".into(), "keep-alive".into())],
            body,
        )))
    }

    /// The client's frames after the preface, decoded: (type, flags, stream, payload).
    fn client_frames(out: &[u8]) -> Vec<(u8, u8, u32, Vec<u8>)> {
        let out = out.strip_prefix(frame::PREFACE).unwrap_or(out);
        let mut got = Vec::new();
        let mut reader = FrameReader::default();
        reader
            .feed::<FrameTooLarge>(out, |f| {
                // (DATA payloads are not kept by the reader: zeros of the frame's length.)
                let payload = if f.ty == frame::DATA { vec![0; f.len] } else { f.payload.to_vec() };
                got.push((f.ty, f.flags, f.stream, payload));
                Ok(())
            })
            .unwrap();
        got
    }

    fn ready_session(body: &[u8], settings: &[(u16, u32)]) -> Session {
        let mut s = Session::new(request(body));
        let mut server = Server::new();
        let mut done = Vec::new();
        s.on_bytes(&server.settings(settings).take(), 0, &names(), &mut done).unwrap();
        assert!(s.ready() && done.is_empty());
        s
    }

    #[test]
    fn request_fields_are_http2_shaped() {
        let r = &request(b"{}").list[0];
        let names: Vec<&[u8]> = r.fields.iter().map(|(n, _)| n.as_slice()).collect();
        assert_eq!(
            names,
            [&b":method"[..], b":scheme", b":authority", b":path", b"x-a", b"content-length"]
        );
        assert_eq!(r.fields[5].1, b"2");
    }

    #[test]
    fn preface_settings_and_a_request_round_trip() {
        let mut s = Session::new(request(b""));
        assert!(s.out.starts_with(frame::PREFACE));
        let first = client_frames(&s.out);
        assert_eq!((first[0].0, first[1].0), (frame::SETTINGS, frame::WINDOW_UPDATE));
        s.out.clear();
        let mut server = Server::new();
        let mut done = Vec::new();
        s.on_bytes(
            &server.settings(&[(SETTINGS_MAX_CONCURRENT_STREAMS, 100)]).take(),
            0,
            &names(),
            &mut done,
        )
        .unwrap();
        assert_eq!(s.max_streams(), 100);
        assert_eq!(client_frames(&s.out)[0], (frame::SETTINGS, frame::ACK, 0, vec![]));
        s.out.clear();
        let (a, b) = (s.open(10, 20, 0), s.open(11, 21, 0));
        assert_eq!((a, b), (1, 3));
        assert_eq!(s.mark_sent(25), 2);
        let sent = client_frames(&s.out);
        assert_eq!(sent.len(), 2);
        assert_eq!((sent[0].0, sent[0].1), (frame::HEADERS, frame::END_HEADERS | frame::END_STREAM));
        // The server's decoder sees the same request twice; the second block is all indices.
        let mut dec = hpack::Decoder::new(4096);
        for (_, _, _, block) in &sent {
            let mut fields = Vec::new();
            dec.decode(block, |_| true, |n, v| fields.push((n.to_vec(), v.to_vec()))).unwrap();
            assert_eq!(fields[3], (b":path".to_vec(), b"/x".to_vec()));
            assert_eq!(fields.len(), 5);
        }
        assert!(sent[1].3.len() <= 5, "steady block: {} bytes", sent[1].3.len());
        // Responses out of order, one with a body over two DATA frames and Server-Timing.
        server
            .head(3, &[(":status", "503"), ("server-timing", "queue;dur=2, compute;dur=7")], false)
            .data(3, b"busy", false)
            .head(1, &[(":status", "200")], true)
            .data(3, b"!", true);
        s.on_bytes(&server.take(), 30, &names(), &mut done).unwrap();
        assert_eq!(
            done,
            vec![
                Outcome::Done {
                    intended_ns: 10,
                    sent_ns: Some(25),
                    request: 0,
                    status: 200,
                    timings: Timings {
                        compute_ms: None,
                        queue_ms: None,
                        unparseable: 0
                    }
                },
                Outcome::Done {
                    intended_ns: 11,
                    sent_ns: Some(25),
                    request: 0,
                    status: 503,
                    timings: Timings {
                        compute_ms: Some(7.0),
                        queue_ms: Some(2.0),
                        unparseable: 0
                    }
                },
            ]
        );
        assert_eq!(s.active(), 0);
    }

    #[test]
    fn streams_started_in_one_turn_leave_as_one_buffer_of_headers() {
        // The worker starts every stream a loop turn frees up, then writes `out` once: fifty
        // HEADERS back to back (one write, one TLS record run), no frame of any other kind, and
        // every one of them marked sent by that write.
        let mut s = ready_session(b"", &[(SETTINGS_MAX_CONCURRENT_STREAMS, 128)]);
        s.out.clear();
        for i in 0..50 {
            s.open(i, i, 0);
        }
        let frames = client_frames(&s.out);
        assert_eq!(frames.len(), 50);
        assert!(frames.iter().all(|f| f.0 == frame::HEADERS && f.1 & frame::END_HEADERS != 0));
        let ids: Vec<u32> = frames.iter().map(|f| f.2).collect();
        assert_eq!(ids, (0..50).map(|i| 1 + 2 * i).collect::<Vec<u32>>());
        // After the first few, each block is the same few index bytes: ~14 bytes a request.
        assert!(s.out.len() < 50 * 16 + 64, "{} bytes", s.out.len());
        assert_eq!(s.mark_sent(7), 50);
        assert_eq!(s.mark_sent(8), 0);
    }

    #[test]
    fn a_mix_sends_each_requests_own_block_and_reports_its_index() {
        let mix = Arc::new(Requests::mix(vec![
            build_request("GET", false, "127.0.0.1:8080", "/fast", &[("X-Name".into(), "a".into())], b""),
            build_request("POST", false, "127.0.0.1:8080", "/slow", &[], b"{}"),
        ]));
        let mut s = Session::new(mix.clone());
        s.out.clear();
        let mut server = Server::new();
        let mut done = Vec::new();
        // A server with a smaller table: the next block must begin with the size update.
        s.on_bytes(&server.settings(&[(SETTINGS_HEADER_TABLE_SIZE, 0)]).take(), 0, &names(), &mut done)
            .unwrap();
        s.out.clear();
        let order = [1u16, 0, 0, 1, 0];
        for (i, &r) in order.iter().enumerate() {
            s.open(i as u64, i as u64, r);
        }
        s.mark_sent(9);
        let heads: Vec<_> = client_frames(&s.out).into_iter().filter(|f| f.0 == frame::HEADERS).collect();
        assert_eq!(heads.len(), order.len());
        assert_eq!(heads[0].3[0], 0x20, "a size update to 0 first");
        assert_eq!(&heads[0].3[1..], mix.blocks.as_ref().unwrap()[1].as_slice());
        // Every later block is the request's own bytes, as built once, and decodes to its fields.
        let mut dec = hpack::Decoder::new(0);
        for (f, &r) in heads.iter().zip(&order) {
            if f.2 != 1 {
                assert_eq!(f.3, mix.blocks.as_ref().unwrap()[r as usize], "stream {}", f.2);
            }
            let mut fields = Vec::new();
            dec.decode(&f.3, |_| true, |n, v| fields.push((n.to_vec(), v.to_vec()))).unwrap();
            assert_eq!(fields, mix.list[r as usize].fields);
            let body_follows = f.1 & frame::END_STREAM == 0;
            assert_eq!(body_follows, r == 1);
        }
        for id in [9u32, 1, 3] {
            server.head(id, &[(":status", "200")], true);
        }
        s.on_bytes(&server.take(), 10, &names(), &mut done).unwrap();
        let got: Vec<(u64, u16)> = done
            .iter()
            .map(|o| match o {
                Outcome::Done { intended_ns, request, .. } => (*intended_ns, *request),
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(got, [(4, 0), (0, 1), (1, 0)]);
        done.clear();
        s.fail_all(errors::H2_PROTOCOL, &mut done);
        let mut failed: Vec<(u64, u16)> = done
            .iter()
            .map(|o| match o {
                Outcome::Failed { intended_ns, request, .. } => (*intended_ns, *request),
                other => panic!("{other:?}"),
            })
            .collect();
        failed.sort();
        assert_eq!(failed, [(2, 0), (3, 1)]);
    }

    #[test]
    fn interim_heads_continuation_and_padding() {
        let mut s = ready_session(b"", &[]);
        s.out.clear();
        s.open(1, 1, 0);
        let mut enc = hpack::Encoder::new();
        let mut bytes = Vec::new();
        let mut block = Vec::new();
        enc.encode([(&b":status"[..], &b"100"[..])], &mut block);
        frame::write_header(&mut bytes, block.len(), frame::HEADERS, frame::END_HEADERS, 1);
        bytes.extend_from_slice(&block);
        block.clear();
        enc.encode([(&b":status"[..], &b"201"[..]), (b"server-timing", b"compute;dur=3")], &mut block);
        // HEADERS padded with 3 bytes, the block split into a CONTINUATION.
        let (a, b) = block.split_at(2);
        frame::write_header(&mut bytes, 1 + a.len() + 3, frame::HEADERS, frame::PADDED | frame::END_STREAM, 1);
        bytes.push(3);
        bytes.extend_from_slice(a);
        bytes.extend_from_slice(&[0, 0, 0]);
        frame::write_header(&mut bytes, b.len(), frame::CONTINUATION, frame::END_HEADERS, 1);
        bytes.extend_from_slice(b);
        let mut done = Vec::new();
        s.on_bytes(&bytes, 5, &names(), &mut done).unwrap();
        match &done[..] {
            [Outcome::Done { status: 201, timings, .. }] => assert_eq!(timings.compute_ms, Some(3.0)),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn resets_goaway_and_timeouts() {
        let mut s = ready_session(b"", &[]);
        for i in 0..4 {
            s.open(i, i, 0);
        }
        s.mark_sent(10);
        let mut bytes = Vec::new();
        frame::write_rst_stream(&mut bytes, 1, REFUSED_STREAM);
        frame::write_rst_stream(&mut bytes, 3, 0x2);
        // GOAWAY: stream 5 was processed, 7 was not.
        frame::write_header(&mut bytes, 8, frame::GOAWAY, 0, 0);
        bytes.extend_from_slice(&5u32.to_be_bytes());
        bytes.extend_from_slice(&0u32.to_be_bytes());
        let mut done = Vec::new();
        s.on_bytes(&bytes, 20, &names(), &mut done).unwrap();
        assert_eq!(
            done,
            vec![
                Outcome::Retry {
                    intended_ns: 0,
                    sent_ns: Some(10)
                },
                Outcome::Failed {
                    intended_ns: 1,
                    sent_ns: Some(10),
                    request: 0,
                    kind: errors::H2_RESET
                },
                Outcome::Retry {
                    intended_ns: 3,
                    sent_ns: Some(10)
                },
            ]
        );
        assert!(s.closing());
        done.clear();
        s.out.clear();
        s.expire(1_000, 500, &mut done);
        assert_eq!(
            done,
            vec![Outcome::Failed {
                intended_ns: 2,
                sent_ns: Some(10),
                request: 0,
                kind: errors::NO_RESPONSE
            }]
        );
        assert_eq!(client_frames(&s.out)[0].0, frame::RST_STREAM);
        assert_eq!(s.active(), 0);
    }

    #[test]
    fn pings_are_answered_and_push_is_refused() {
        let mut s = ready_session(b"", &[]);
        s.out.clear();
        let mut bytes = Vec::new();
        frame::write_header(&mut bytes, 8, frame::PING, 0, 0);
        bytes.extend_from_slice(b"12345678");
        let mut done = Vec::new();
        s.on_bytes(&bytes, 0, &names(), &mut done).unwrap();
        assert_eq!(client_frames(&s.out), vec![(frame::PING, frame::ACK, 0, b"12345678".to_vec())]);
        let mut push = Vec::new();
        frame::write_header(&mut push, 4, frame::PUSH_PROMISE, frame::END_HEADERS, 1);
        push.extend_from_slice(&2u32.to_be_bytes());
        assert_eq!(s.on_bytes(&push, 0, &names(), &mut done), Err(ConnError(errors::H2_PROTOCOL)));
    }

    #[test]
    fn a_body_waits_for_the_server_window() {
        let body = vec![7u8; 40_000];
        // The server allows 10,000 bytes per stream and frames of 16 KiB.
        let mut s = ready_session(&body, &[(SETTINGS_INITIAL_WINDOW_SIZE, 10_000)]);
        s.out.clear();
        s.open(0, 0, 0);
        let data_bytes = |out: &[u8]| -> usize { client_frames(out).iter().filter(|f| f.0 == frame::DATA).map(|f| f.3.len()).sum() };
        assert_eq!(data_bytes(&s.out), 10_000);
        s.out.clear();
        let mut bytes = Vec::new();
        frame::write_window_update(&mut bytes, 1, 50_000);
        let mut done = Vec::new();
        s.on_bytes(&bytes, 0, &names(), &mut done).unwrap();
        // The connection window (65,535 by default) now limits: 55,535 left of it.
        let frames = client_frames(&s.out);
        assert_eq!(data_bytes(&s.out), 30_000);
        assert!(frames.iter().all(|f| f.3.len() <= 16_384));
        assert_eq!(frames.last().unwrap().1, frame::END_STREAM);
    }

    #[test]
    fn a_bad_header_block_is_a_connection_error() {
        let mut s = ready_session(b"", &[]);
        s.open(0, 0, 0);
        let mut bytes = Vec::new();
        frame::write_header(&mut bytes, 1, frame::HEADERS, frame::END_HEADERS, 1);
        bytes.push(0x80); // index 0
        let mut done = Vec::new();
        assert_eq!(s.on_bytes(&bytes, 0, &names(), &mut done), Err(ConnError(errors::H2_PROTOCOL)));
        s.fail_all(errors::H2_PROTOCOL, &mut done);
        assert_eq!(done.len(), 1);
    }
}
