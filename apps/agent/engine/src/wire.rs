//! What the engine writes on stdout: length-prefixed frames. Every frame is `u32` (little-endian)
//! length of what follows, then a type byte:
//! - `J`: a UTF-8 JSON object (`hello`, `progress`, `end`, `error`): rare, small, extensible.
//! - `E`: a batch of request events in columns — 3 bytes of padding, `u32` count n, then five
//!   `f64` columns of n (intended, sent, ended — ms since the step's t0 — compute, queue — ms,
//!   NaN when absent; sent is NaN when the request never left), `u16` status × n, `u16` request
//!   × n (its index in the `--requests-file` mix; 0 without one), `u8` kind × n
//!   (0: an HTTP response; 1…: `ERROR_KINDS[kind-1]`; 255: cancelled, not an event), `u8`
//!   unparseable Server-Timing entries × n. The f64 columns start 8 bytes after the length, so a
//!   reader that copies the frame to an aligned buffer gets `Float64Array` views without a copy
//!   per value.

/// 2: `hello` says `tls`, `end` carries `tls` (handshakes of the step), two TLS error kinds.
/// 3: `--http`/`--http2`/`--connections`, `hello` says `http` ("1.1" or "2"), two HTTP/2 error kinds.
/// 4: `--requests-file` (a weighted mix), and a `u16` request column (the index in the mix) after status.
///    Later within 4: `end` carries `opened` (connections opened during the step); readers take it as optional.
pub const PROTOCOL: u32 = 4;
pub const KIND_CANCELLED: u8 = 255;

/// One worker's events since its last hand-off.
#[derive(Default)]
pub struct EventBatch {
    pub intended: Vec<f64>,
    pub sent: Vec<f64>,
    pub ended: Vec<f64>,
    pub compute: Vec<f64>,
    pub queue: Vec<f64>,
    pub status: Vec<u16>,
    pub request: Vec<u16>,
    pub kind: Vec<u8>,
    pub unparseable: Vec<u8>,
}

pub struct Event {
    pub intended_ms: f64,
    pub sent_ms: f64,
    pub ended_ms: f64,
    pub compute_ms: f64,
    pub queue_ms: f64,
    pub status: u16,
    pub kind: u8,
    pub unparseable: u8,
    /// The request's index in the mix (0 without one).
    pub request: u16,
}

impl Event {
    /// A request on the wire when the step ended (sent, never answered): its times, no status.
    pub fn cancelled(intended_ms: f64, sent_ms: f64, ended_ms: f64) -> Self {
        Event {
            intended_ms,
            sent_ms,
            ended_ms,
            compute_ms: f64::NAN,
            queue_ms: f64::NAN,
            status: 0,
            kind: KIND_CANCELLED,
            unparseable: 0,
            request: 0,
        }
    }
}

impl EventBatch {
    pub fn with_capacity(n: usize) -> Self {
        EventBatch {
            intended: Vec::with_capacity(n),
            sent: Vec::with_capacity(n),
            ended: Vec::with_capacity(n),
            compute: Vec::with_capacity(n),
            queue: Vec::with_capacity(n),
            status: Vec::with_capacity(n),
            request: Vec::with_capacity(n),
            kind: Vec::with_capacity(n),
            unparseable: Vec::with_capacity(n),
        }
    }

    pub fn len(&self) -> usize {
        self.status.len()
    }

    pub fn is_empty(&self) -> bool {
        self.status.is_empty()
    }

    pub fn push(&mut self, e: Event) {
        self.intended.push(e.intended_ms);
        self.sent.push(e.sent_ms);
        self.ended.push(e.ended_ms);
        self.compute.push(e.compute_ms);
        self.queue.push(e.queue_ms);
        self.status.push(e.status);
        self.request.push(e.request);
        self.kind.push(e.kind);
        self.unparseable.push(e.unparseable);
    }

    /// The whole frame, length prefix included; the batch is left empty for reuse.
    pub fn encode(&mut self) -> Vec<u8> {
        let n = self.len();
        let body = 8 + n * (5 * 8 + 2 + 2 + 1 + 1);
        let mut out = Vec::with_capacity(4 + body);
        out.extend_from_slice(&(body as u32).to_le_bytes());
        out.extend_from_slice(&[b'E', 0, 0, 0]);
        out.extend_from_slice(&(n as u32).to_le_bytes());
        for col in [&self.intended, &self.sent, &self.ended, &self.compute, &self.queue] {
            for v in col.iter() {
                out.extend_from_slice(&v.to_le_bytes());
            }
        }
        for col in [&self.status, &self.request] {
            for v in col.iter() {
                out.extend_from_slice(&v.to_le_bytes());
            }
        }
        out.extend_from_slice(&self.kind);
        out.extend_from_slice(&self.unparseable);
        self.intended.clear();
        self.sent.clear();
        self.ended.clear();
        self.compute.clear();
        self.queue.clear();
        self.status.clear();
        self.request.clear();
        self.kind.clear();
        self.unparseable.clear();
        out
    }
}

/// A `J` frame around a JSON object's text.
pub fn json_frame(json: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(5 + json.len());
    out.extend_from_slice(&((1 + json.len()) as u32).to_le_bytes());
    out.push(b'J');
    out.extend_from_slice(json.as_bytes());
    out
}

pub fn json_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for ch in s.chars() {
        match ch {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A number as JSON: non-finite values become null.
pub fn json_number(x: f64) -> String {
    if x.is_finite() {
        format!("{x}")
    } else {
        "null".into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn event_frame_layout() {
        let mut b = EventBatch::default();
        b.push(Event {
            intended_ms: 1.0,
            sent_ms: 1.5,
            ended_ms: 3.0,
            compute_ms: f64::NAN,
            queue_ms: 0.25,
            status: 200,
            kind: 0,
            unparseable: 1,
            request: 7,
        });
        b.push(Event {
            intended_ms: 2.0,
            sent_ms: f64::NAN,
            ended_ms: 4.0,
            compute_ms: 1.0,
            queue_ms: f64::NAN,
            status: 0,
            kind: 3,
            unparseable: 0,
            request: 0,
        });
        let f = b.encode();
        assert!(b.is_empty());
        assert_eq!(u32::from_le_bytes(f[0..4].try_into().unwrap()) as usize, f.len() - 4);
        assert_eq!(&f[4..8], b"E\0\0\0");
        assert_eq!(u32::from_le_bytes(f[8..12].try_into().unwrap()), 2);
        let f64_at = |i: usize| f64::from_le_bytes(f[12 + i * 8..20 + i * 8].try_into().unwrap());
        assert_eq!([f64_at(0), f64_at(1), f64_at(2), f64_at(4)], [1.0, 2.0, 1.5, 3.0]);
        assert!(f64_at(3).is_nan() && f64_at(6).is_nan());
        let s = 12 + 10 * 8;
        assert_eq!(u16::from_le_bytes([f[s], f[s + 1]]), 200);
        assert_eq!(u16::from_le_bytes([f[s + 4], f[s + 5]]), 7);
        assert_eq!(&f[s + 8..], &[0, 3, 1, 0]);
    }

    #[test]
    fn json_helpers() {
        assert_eq!(json_string("a\"b\\c\n"), "\"a\\\"b\\\\c\\u000a\"");
        assert_eq!(json_number(f64::NAN), "null");
        assert_eq!(json_number(2.5), "2.5");
        let f = json_frame("{}");
        assert_eq!(f, vec![3, 0, 0, 0, b'J', b'{', b'}']);
    }
}
