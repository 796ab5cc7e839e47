//! HTTP/2 framing (RFC 9113 §4): the 9-byte frame header, writers for the frames a client sends,
//! and an incremental reader. The reader hands over whole frames, parsed from the input in place
//! when they are whole in it; a DATA frame's payload is never copied (a load client only needs
//! its length, for flow control, and its END_STREAM flag).

pub const DATA: u8 = 0x0;
pub const HEADERS: u8 = 0x1;
pub const RST_STREAM: u8 = 0x3;
pub const SETTINGS: u8 = 0x4;
pub const PUSH_PROMISE: u8 = 0x5;
pub const PING: u8 = 0x6;
pub const GOAWAY: u8 = 0x7;
pub const WINDOW_UPDATE: u8 = 0x8;
pub const CONTINUATION: u8 = 0x9;

pub const END_STREAM: u8 = 0x1;
pub const ACK: u8 = 0x1;
pub const END_HEADERS: u8 = 0x4;
pub const PADDED: u8 = 0x8;
pub const PRIORITY: u8 = 0x20;

pub const PREFACE: &[u8] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";
/// A non-DATA frame larger than this is refused (we advertise the default 16 KiB; this is lenient).
const MAX_BUFFERED: usize = 1 << 20;

pub fn write_header(out: &mut Vec<u8>, len: usize, ty: u8, flags: u8, stream: u32) {
    let len = len as u32;
    out.extend_from_slice(&[(len >> 16) as u8, (len >> 8) as u8, len as u8, ty, flags]);
    out.extend_from_slice(&(stream & 0x7fff_ffff).to_be_bytes());
}

pub fn write_settings(out: &mut Vec<u8>, params: &[(u16, u32)]) {
    write_header(out, params.len() * 6, SETTINGS, 0, 0);
    for (id, v) in params {
        out.extend_from_slice(&id.to_be_bytes());
        out.extend_from_slice(&v.to_be_bytes());
    }
}

pub fn write_window_update(out: &mut Vec<u8>, stream: u32, increment: u32) {
    write_header(out, 4, WINDOW_UPDATE, 0, stream);
    out.extend_from_slice(&increment.to_be_bytes());
}

pub fn write_rst_stream(out: &mut Vec<u8>, stream: u32, code: u32) {
    write_header(out, 4, RST_STREAM, 0, stream);
    out.extend_from_slice(&code.to_be_bytes());
}

/// One frame as read: for DATA, `payload` is empty and `len` says how long it was.
#[derive(Debug, PartialEq, Eq)]
pub struct Frame<'a> {
    pub ty: u8,
    pub flags: u8,
    pub stream: u32,
    pub len: usize,
    pub payload: &'a [u8],
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FrameTooLarge;

/// Incremental frame reader: feed it bytes as they come.
#[derive(Default)]
pub struct FrameReader {
    head: [u8; 9],
    head_len: usize,
    /// The current frame's payload, when it was split across reads (non-DATA only).
    body: Vec<u8>,
    /// Bytes of the current frame's payload still to come (valid once the head is whole).
    left: usize,
}

impl FrameReader {
    /// Calls `on` for each frame completed by `data`; stops at the first error `on` returns.
    pub fn feed<E: From<FrameTooLarge>>(&mut self, mut data: &[u8], mut on: impl FnMut(Frame<'_>) -> Result<(), E>) -> Result<(), E> {
        loop {
            if self.head_len < 9 {
                if self.head_len == 0 && data.len() >= 9 {
                    // The usual case: whole frames in the input, parsed where they lie.
                    let (len, ty) = (u32::from_be_bytes([0, data[0], data[1], data[2]]) as usize, data[3]);
                    if data.len() >= 9 + len && (ty == DATA || len <= MAX_BUFFERED) {
                        let f = frame_of(&data[..9], len, if ty == DATA { &[] } else { &data[9..9 + len] });
                        data = &data[9 + len..];
                        on(f)?;
                        continue;
                    }
                }
                let take = (9 - self.head_len).min(data.len());
                self.head[self.head_len..self.head_len + take].copy_from_slice(&data[..take]);
                self.head_len += take;
                data = &data[take..];
                if self.head_len < 9 {
                    return Ok(());
                }
                self.left = u32::from_be_bytes([0, self.head[0], self.head[1], self.head[2]]) as usize;
                if self.head[3] != DATA && self.left > MAX_BUFFERED {
                    return Err(FrameTooLarge.into());
                }
                self.body.clear();
            }
            let take = self.left.min(data.len());
            if self.head[3] != DATA {
                self.body.extend_from_slice(&data[..take]);
            }
            self.left -= take;
            data = &data[take..];
            if self.left > 0 {
                return Ok(());
            }
            self.head_len = 0;
            let len = u32::from_be_bytes([0, self.head[0], self.head[1], self.head[2]]) as usize;
            let body = std::mem::take(&mut self.body);
            let r = on(frame_of(&self.head, len, &body));
            self.body = body;
            r?;
            if data.is_empty() {
                return Ok(());
            }
        }
    }
}

fn frame_of<'a>(head: &[u8], len: usize, payload: &'a [u8]) -> Frame<'a> {
    Frame {
        ty: head[3],
        flags: head[4],
        stream: u32::from_be_bytes([head[5], head[6], head[7], head[8]]) & 0x7fff_ffff,
        len,
        payload,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frames_of(parts: &[&[u8]]) -> Vec<(u8, u8, u32, usize, Vec<u8>)> {
        let mut r = FrameReader::default();
        let mut got = Vec::new();
        for p in parts {
            r.feed::<FrameTooLarge>(p, |f| {
                got.push((f.ty, f.flags, f.stream, f.len, f.payload.to_vec()));
                Ok(())
            })
            .unwrap();
        }
        got
    }

    #[test]
    fn frames_split_at_every_byte() {
        let mut bytes = Vec::new();
        write_settings(&mut bytes, &[(3, 100), (4, 65_535)]);
        write_header(&mut bytes, 5, DATA, END_STREAM, 3);
        bytes.extend_from_slice(b"hello");
        write_window_update(&mut bytes, 0, 1_000);
        write_header(&mut bytes, 0, SETTINGS, ACK, 0);
        let whole = frames_of(&[&bytes]);
        assert_eq!(whole.len(), 4);
        assert_eq!(whole[0].0, SETTINGS);
        assert_eq!(whole[0].4, vec![0, 3, 0, 0, 0, 100, 0, 4, 0, 0, 0xff, 0xff]);
        assert_eq!(whole[1], (DATA, END_STREAM, 3, 5, vec![]), "DATA payload is not kept");
        assert_eq!(whole[2], (WINDOW_UPDATE, 0, 0, 4, 1_000u32.to_be_bytes().to_vec()));
        assert_eq!(whole[3], (SETTINGS, ACK, 0, 0, vec![]));
        for cut in 1..bytes.len() {
            assert_eq!(frames_of(&[&bytes[..cut], &bytes[cut..]]), whole, "cut at {cut}");
        }
        let bytewise: Vec<&[u8]> = bytes.chunks(1).collect();
        assert_eq!(frames_of(&bytewise), whole);
    }

    #[test]
    fn the_reserved_bit_is_ignored_and_huge_frames_refused() {
        let mut bytes = Vec::new();
        write_header(&mut bytes, 0, RST_STREAM, 0, 5);
        bytes[5] |= 0x80;
        assert_eq!(frames_of(&[&bytes])[0].2, 5);
        let mut huge = Vec::new();
        write_header(&mut huge, MAX_BUFFERED + 1, HEADERS, 0, 1);
        let mut r = FrameReader::default();
        assert_eq!(r.feed::<FrameTooLarge>(&huge, |_| Ok(())), Err(FrameTooLarge));
    }
}
