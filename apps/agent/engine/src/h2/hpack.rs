//! HPACK (RFC 7541), the parts a load client needs: an encoder for the request's headers (static
//! and dynamic table indices, literals with incremental indexing, no Huffman — the table makes
//! every request after the first a few index bytes anyway), a table-free encoding for a mix's
//! requests (`encode_stateless`: static indices and literals without indexing, the same bytes
//! whatever the table holds) and a full decoder for the responses
//! (indices, every literal form, table size updates, Huffman strings). The decoder keeps the
//! dynamic table exact, since every later block depends on it, but decodes a literal's value only
//! when the caller wants that header (`:status`, `server-timing`): a `date` is skipped unread.

use super::tables::{CODES, STATIC};
use std::collections::VecDeque;
use std::sync::OnceLock;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HpackError;

/// An entry costs its bytes plus 32 (RFC 7541 §4.1).
fn entry_size(name: &[u8], value: &[u8]) -> usize {
    name.len() + value.len() + 32
}

/// The dynamic table: newest first, evicted from the back to stay within `max`.
#[derive(Default)]
struct Table {
    entries: VecDeque<(Vec<u8>, Vec<u8>)>,
    size: usize,
    max: usize,
    /// Buffers of evicted entries, for the next literals: a server that indexes every response
    /// header (nginx inserts 3 a response) would otherwise cost an allocation and a free each.
    spare: Vec<Vec<u8>>,
}

/// Evicted buffers kept for reuse (an entry gives two).
const SPARE: usize = 8;

impl Table {
    fn new(max: usize) -> Table {
        Table { max, ..Default::default() }
    }

    fn evict_to(&mut self, limit: usize) {
        while self.size > limit {
            let (n, v) = self.entries.pop_back().expect("size > 0 means entries");
            self.size -= entry_size(&n, &v);
            for b in [n, v] {
                if self.spare.len() < SPARE {
                    self.spare.push(b);
                }
            }
        }
    }

    /// An empty buffer, an evicted entry's when there is one.
    fn take_spare(&mut self) -> Vec<u8> {
        let mut b = self.spare.pop().unwrap_or_default();
        b.clear();
        b
    }

    fn insert(&mut self, name: Vec<u8>, value: Vec<u8>) {
        let size = entry_size(&name, &value);
        if size > self.max {
            // Larger than the table: it empties the table and is not added (§4.4).
            self.evict_to(0);
            return;
        }
        self.evict_to(self.max - size);
        self.size += size;
        self.entries.push_front((name, value));
    }

    fn set_max(&mut self, max: usize) {
        self.max = max;
        self.evict_to(max);
    }

    /// Index 1..=61 static, 62.. dynamic (newest first).
    fn get(&self, index: usize) -> Option<(&[u8], &[u8])> {
        match index {
            0 => None,
            1..=61 => STATIC.get(index - 1).map(|(n, v)| (n.as_bytes(), v.as_bytes())),
            _ => self.entries.get(index - 62).map(|(n, v)| (n.as_slice(), v.as_slice())),
        }
    }
}

/// Decodes response header blocks of one connection.
pub struct Decoder {
    table: Table,
    /// Our SETTINGS_HEADER_TABLE_SIZE: a size update above it is an error.
    settings_max: usize,
    name: Vec<u8>,
    value: Vec<u8>,
    memo: HuffmanMemo,
}

impl Decoder {
    pub fn new(settings_max: usize) -> Decoder {
        Decoder {
            table: Table::new(settings_max),
            settings_max,
            name: Vec::new(),
            value: Vec::new(),
            memo: HuffmanMemo::default(),
        }
    }

    /// Calls `on(name, value)` for every header of the block whose name `want` accepts (the
    /// others are decoded only as far as the dynamic table needs).
    pub fn decode(&mut self, mut block: &[u8], want: impl Fn(&[u8]) -> bool, mut on: impl FnMut(&[u8], &[u8])) -> Result<(), HpackError> {
        while let Some(&first) = block.first() {
            if first & 0x80 != 0 {
                let index = read_int(&mut block, 7)?;
                let (n, v) = self.table.get(index).ok_or(HpackError)?;
                if want(n) {
                    on(n, v);
                }
            } else if first & 0x40 != 0 {
                // Literal with incremental indexing: name and value are both needed for the table.
                let index = read_int(&mut block, 6)?;
                self.read_name(&mut block, index)?;
                read_string(&mut block, &mut self.value, true, &mut self.memo)?;
                if want(&self.name) {
                    on(&self.name, &self.value);
                }
                let name = std::mem::replace(&mut self.name, self.table.take_spare());
                let value = std::mem::replace(&mut self.value, self.table.take_spare());
                self.table.insert(name, value);
            } else if first & 0x20 != 0 {
                let max = read_int(&mut block, 5)?;
                if max > self.settings_max {
                    return Err(HpackError);
                }
                self.table.set_max(max);
            } else {
                // Without indexing (0000) or never indexed (0001): the value only if wanted.
                let index = read_int(&mut block, 4)?;
                self.read_name(&mut block, index)?;
                let wanted = want(&self.name);
                read_string(&mut block, &mut self.value, wanted, &mut self.memo)?;
                if wanted {
                    on(&self.name, &self.value);
                }
            }
        }
        Ok(())
    }

    /// The literal's name into `self.name`: from the table (index > 0) or the block.
    fn read_name(&mut self, block: &mut &[u8], index: usize) -> Result<(), HpackError> {
        self.name.clear();
        if index == 0 {
            return read_string(block, &mut self.name, true, &mut self.memo);
        }
        let (n, _) = self.table.get(index).ok_or(HpackError)?;
        self.name.extend_from_slice(n);
        Ok(())
    }
}

/// Encodes request header blocks of one connection.
pub struct Encoder {
    table: Table,
    /// A size update the peer's smaller SETTINGS_HEADER_TABLE_SIZE calls for, due at the next block.
    pending_update: Option<usize>,
}

impl Encoder {
    pub fn new() -> Encoder {
        Encoder {
            table: Table::new(4096),
            pending_update: None,
        }
    }

    /// The peer's SETTINGS_HEADER_TABLE_SIZE: we use at most 4,096 of it (the default).
    pub fn set_peer_max(&mut self, max: usize) {
        let max = max.min(4096);
        if max != self.table.max {
            self.table.set_max(max);
            self.pending_update = Some(max);
        }
    }

    /// Writes the size update a smaller peer table calls for, if one is due (it must begin the
    /// next block, RFC 7541 §4.2, even a block that never touches the table). True if written.
    pub fn write_pending_update(&mut self, out: &mut Vec<u8>) -> bool {
        match self.pending_update.take() {
            Some(max) => {
                write_int(out, 0x20, 5, max);
                true
            }
            None => false,
        }
    }

    /// Appends the block for `fields` to `out`. True when it changed the table (a block that did
    /// not is all indices and can be sent again as it is).
    pub fn encode<'a>(&mut self, fields: impl IntoIterator<Item = (&'a [u8], &'a [u8])>, out: &mut Vec<u8>) -> bool {
        let mut changed = false;
        if let Some(max) = self.pending_update.take() {
            write_int(out, 0x20, 5, max);
            changed = true;
        }
        for (name, value) in fields {
            let mut name_index = 0;
            let mut exact = 0;
            for (i, (n, v)) in STATIC.iter().enumerate() {
                if n.as_bytes() == name {
                    if name_index == 0 {
                        name_index = i + 1;
                    }
                    if v.as_bytes() == value {
                        exact = i + 1;
                        break;
                    }
                }
            }
            if exact == 0 {
                for (i, (n, v)) in self.table.entries.iter().enumerate() {
                    if n.as_slice() == name {
                        if name_index == 0 {
                            name_index = i + 62;
                        }
                        if v.as_slice() == value {
                            exact = i + 62;
                            break;
                        }
                    }
                }
            }
            if exact != 0 {
                write_int(out, 0x80, 7, exact);
                continue;
            }
            if entry_size(name, value) > self.table.max {
                // Too big to keep: without indexing, so the table (and the other headers) stay.
                write_int(out, 0x00, 4, name_index);
            } else {
                write_int(out, 0x40, 6, name_index);
                self.table.insert(name.to_vec(), value.to_vec());
                changed = true;
            }
            if name_index == 0 {
                write_string(out, name);
            }
            write_string(out, value);
        }
        changed
    }
}

/// A block that neither reads nor changes the dynamic table: a static entry's index where name and
/// value match one, else a literal without indexing (§6.2.2; the name a static index when the
/// table has it). Built once per request of a mix, it stays right on any connection at any time —
/// no insert, so nothing is evicted under another request's block.
pub fn encode_stateless<'a>(fields: impl IntoIterator<Item = (&'a [u8], &'a [u8])>, out: &mut Vec<u8>) {
    for (name, value) in fields {
        let mut name_index = 0;
        let mut exact = 0;
        for (i, (n, v)) in STATIC.iter().enumerate() {
            if n.as_bytes() == name {
                if name_index == 0 {
                    name_index = i + 1;
                }
                if v.as_bytes() == value {
                    exact = i + 1;
                    break;
                }
            }
        }
        if exact != 0 {
            write_int(out, 0x80, 7, exact);
            continue;
        }
        write_int(out, 0x00, 4, name_index);
        if name_index == 0 {
            write_string(out, name);
        }
        write_string(out, value);
    }
}

/// An integer with an N-bit prefix (§5.1); `first` holds the representation's high bits.
pub fn write_int(out: &mut Vec<u8>, first: u8, prefix: u32, mut n: usize) {
    let max = (1usize << prefix) - 1;
    if n < max {
        out.push(first | n as u8);
        return;
    }
    out.push(first | max as u8);
    n -= max;
    while n >= 128 {
        out.push((n % 128) as u8 | 0x80);
        n /= 128;
    }
    out.push(n as u8);
}

fn read_int(block: &mut &[u8], prefix: u32) -> Result<usize, HpackError> {
    let max = (1usize << prefix) - 1;
    let (&first, rest) = block.split_first().ok_or(HpackError)?;
    *block = rest;
    let mut n = first as usize & max;
    if n < max {
        return Ok(n);
    }
    let mut shift = 0;
    loop {
        let (&b, rest) = block.split_first().ok_or(HpackError)?;
        *block = rest;
        if shift > 28 {
            return Err(HpackError);
        }
        n += ((b & 0x7f) as usize) << shift;
        shift += 7;
        if b & 0x80 == 0 {
            return Ok(n);
        }
    }
}

/// A raw (not Huffman-coded) string literal.
fn write_string(out: &mut Vec<u8>, s: &[u8]) {
    write_int(out, 0x00, 7, s.len());
    out.extend_from_slice(s);
}

/// A string literal into `out` (cleared), Huffman-decoded if coded; with `keep` false it is only
/// skipped.
/// The last few Huffman strings decoded, as (encoded, decoded): a server sends the same values
/// again and again (nginx: `server`, `content-type`, and `date` within a second, each a literal
/// with incremental indexing that the table needs decoded), and comparing 10–25 bytes costs far
/// less than walking the code. The decoding is a function of the bytes, so a hit is exact.
#[derive(Default)]
struct HuffmanMemo {
    slots: [(Vec<u8>, Vec<u8>); 4],
    next: usize,
}

impl HuffmanMemo {
    fn decode(&mut self, encoded: &[u8], out: &mut Vec<u8>) -> Result<(), HpackError> {
        if let Some((_, decoded)) = self.slots.iter().find(|(e, _)| !e.is_empty() && e.as_slice() == encoded) {
            out.extend_from_slice(decoded);
            return Ok(());
        }
        let start = out.len();
        huffman_decode(encoded, out)?;
        let slot = self.next;
        self.next = (slot + 1) % self.slots.len();
        let (e, d) = &mut self.slots[slot];
        e.clear();
        e.extend_from_slice(encoded);
        d.clear();
        d.extend_from_slice(&out[start..]);
        Ok(())
    }
}

fn read_string(block: &mut &[u8], out: &mut Vec<u8>, keep: bool, memo: &mut HuffmanMemo) -> Result<(), HpackError> {
    let huffman = block.first().ok_or(HpackError)? & 0x80 != 0;
    let len = read_int(block, 7)?;
    if len > block.len() {
        return Err(HpackError);
    }
    let (s, rest) = block.split_at(len);
    *block = rest;
    out.clear();
    if !keep {
        return Ok(());
    }
    if huffman {
        memo.decode(s, out)
    } else {
        out.extend_from_slice(s);
        Ok(())
    }
}

/// The Huffman decoder walks 4 bits at a time through a table built once from the code: for each
/// node of the code's tree (a state) and each nibble, the next state and the byte completed on
/// the way, if any (codes are ≥ 5 bits, so at most one per nibble).
struct Nibbles {
    /// [state][nibble] → (next state, byte, flags)
    next: Vec<[(u16, u8, u8); 16]>,
    /// A state where the input may end: the root, or ≤ 7 one-bits into a code (EOS's padding).
    accepting: Vec<bool>,
}

const EMIT: u8 = 1;
const FAIL: u8 = 2;

fn nibbles() -> &'static Nibbles {
    static N: OnceLock<Nibbles> = OnceLock::new();
    N.get_or_init(|| {
        // The tree: children ≥ 0 are nodes, < 0 are leaves -(symbol + 1); symbol 256 is EOS.
        let mut tree: Vec<[i32; 2]> = vec![[0, 0]];
        let mut accepting = vec![true];
        let codes = CODES.iter().copied().chain(std::iter::once((0x3fff_ffff, 30)));
        for (sym, (code, len)) in codes.enumerate() {
            let mut node = 0usize;
            let mut ones = true;
            for bit in (0..len).rev() {
                let b = ((code >> bit) & 1) as usize;
                ones &= b == 1;
                if bit == 0 {
                    tree[node][b] = -(sym as i32 + 1);
                } else {
                    if tree[node][b] <= 0 {
                        tree.push([0, 0]);
                        // Reached by `len - bit` ones from the root: a place where padding may stop.
                        accepting.push(ones && (len - bit) < 8);
                        tree[node][b] = (tree.len() - 1) as i32;
                    }
                    node = tree[node][b] as usize;
                }
            }
        }
        let mut next = vec![[(0u16, 0u8, 0u8); 16]; tree.len()];
        for (state, row) in next.iter_mut().enumerate() {
            for (nib, cell) in row.iter_mut().enumerate() {
                let (mut node, mut byte, mut flags) = (state, 0u8, 0u8);
                for bit in (0..4).rev() {
                    let child = tree[node][(nib >> bit) & 1];
                    if child < 0 {
                        let sym = -(child + 1);
                        if sym == 256 {
                            flags |= FAIL;
                        }
                        byte = sym as u8;
                        flags |= EMIT;
                        node = 0;
                    } else {
                        node = child as usize;
                    }
                }
                *cell = (node as u16, byte, flags);
            }
        }
        Nibbles { next, accepting }
    })
}

pub fn huffman_decode(input: &[u8], out: &mut Vec<u8>) -> Result<(), HpackError> {
    let n = nibbles();
    let mut state = 0usize;
    for &b in input {
        for nib in [b >> 4, b & 0x0f] {
            let (next, byte, flags) = n.next[state][nib as usize];
            if flags & FAIL != 0 {
                return Err(HpackError);
            }
            if flags & EMIT != 0 {
                out.push(byte);
            }
            state = next as usize;
        }
    }
    if n.accepting[state] {
        Ok(())
    } else {
        Err(HpackError)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(s: &str) -> Vec<u8> {
        let s: String = s.chars().filter(|c| !c.is_whitespace()).collect();
        (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
            .collect()
    }

    fn decode_all(d: &mut Decoder, block: &[u8]) -> Vec<(String, String)> {
        let mut got = Vec::new();
        d.decode(
            block,
            |_| true,
            |n, v| got.push((String::from_utf8(n.to_vec()).unwrap(), String::from_utf8(v.to_vec()).unwrap())),
        )
        .unwrap();
        got
    }

    fn pairs(p: &[(&str, &str)]) -> Vec<(String, String)> {
        p.iter().map(|(n, v)| (n.to_string(), v.to_string())).collect()
    }

    #[test]
    fn integers_round_trip_at_every_prefix() {
        // RFC 7541 C.1: 10 in 5 bits, 1337 in 5 bits, 42 in 8 bits.
        let mut out = Vec::new();
        write_int(&mut out, 0, 5, 1337);
        assert_eq!(out, [31, 154, 10]);
        for prefix in 1..=8 {
            for n in [0usize, 1, 30, 31, 127, 128, 255, 1337, 65_535, 1 << 20] {
                let mut out = Vec::new();
                write_int(&mut out, 0, prefix, n);
                let mut s = out.as_slice();
                assert_eq!(read_int(&mut s, prefix).unwrap(), n, "{n} in {prefix} bits");
                assert!(s.is_empty());
            }
        }
        assert!(read_int(&mut [0x1f, 0x80].as_slice(), 5).is_err(), "cut short");
    }

    #[test]
    fn rfc_c4_requests_with_huffman_and_the_dynamic_table() {
        let mut d = Decoder::new(4096);
        let first = decode_all(&mut d, &hex("8286 8441 8cf1 e3c2 e5f2 3a6b a0ab 90f4 ff"));
        assert_eq!(
            first,
            pairs(&[
                (":method", "GET"),
                (":scheme", "http"),
                (":path", "/"),
                (":authority", "www.example.com")
            ])
        );
        let second = decode_all(&mut d, &hex("8286 84be 5886 a8eb 1064 9cbf"));
        assert_eq!(
            second,
            pairs(&[
                (":method", "GET"),
                (":scheme", "http"),
                (":path", "/"),
                (":authority", "www.example.com"),
                ("cache-control", "no-cache")
            ])
        );
        let third = decode_all(&mut d, &hex("8287 85bf 4088 25a8 49e9 5ba9 7d7f 8925 a849 e95b b8e8 b4bf"));
        assert_eq!(third[4], ("custom-key".to_string(), "custom-value".to_string()));
        assert_eq!(d.table.size, 164);
    }

    #[test]
    fn rfc_c6_responses_evict_within_256_bytes() {
        let mut d = Decoder::new(4096);
        d.table.set_max(256);
        let first = decode_all(
            &mut d,
            &hex("4882 6402 5885 aec3 771a 4b61 96d0 7abe 9410 54d4 44a8 2005 9504 0b81 66e0 82a6 2d1b ff6e 919d 29ad 1718 63c7 8f0b 97c8 e9ae 82ae 43d3"),
        );
        assert_eq!(first[0], (":status".to_string(), "302".to_string()));
        assert_eq!(first[3], ("location".to_string(), "https://www.example.com".to_string()));
        let second = decode_all(&mut d, &hex("4883 640e ffc1 c0bf"));
        assert_eq!(second[0], (":status".to_string(), "307".to_string()));
        assert_eq!(second[3].1, "https://www.example.com");
        assert_eq!(d.table.size, 222);
    }

    #[test]
    fn repeated_indexed_huffman_values_decode_the_same_through_the_memo() {
        // nginx 1.22's response head, as sent: every field a Huffman literal with incremental
        // indexing (server, date, content-type), so each response inserts into the table.
        let block = hex(
            "8876 89aa 6355 e580 ae21 2e1f 6197 c361 be94 13aa 693f 7504 0138 a05b b8cb 371a 754c 5a37 ff5f 8749 7ca5 8ae8 19aa 5c01 33",
        );
        let expected = decode_all(&mut Decoder::new(4096), &block);
        assert_eq!(expected[1], ("server".to_string(), "nginx/1.22.1".to_string()));
        assert_eq!(expected[3], ("content-type".to_string(), "text/plain".to_string()));
        // Another date in between: a miss, and the memo's slots turn over.
        let mut other = block.clone();
        let at = other.iter().position(|&b| b == 0x61).unwrap() + 2;
        other[at + 5] ^= 0x10;
        let mut d = Decoder::new(4096);
        let other_expected = decode_all(&mut Decoder::new(4096), &other);
        assert_ne!(other_expected[2], expected[2]);
        for i in 0..300 {
            if i % 7 == 3 {
                assert_eq!(decode_all(&mut d, &other), other_expected);
            } else {
                assert_eq!(decode_all(&mut d, &block), expected, "block {i}");
            }
        }
        // The table holds what a fresh decoder's does: the newest entries, by index, and evicted
        // buffers reused did not leak into them.
        let by_index = decode_all(&mut d, &hex("bebf c0c1"));
        let mut want: Vec<_> = expected[1..].to_vec();
        want.reverse();
        assert_eq!(by_index, want);
        assert!(d.table.size <= 4096 && d.table.entries.len() > 4);
        assert!(d.table.spare.len() <= SPARE);
    }

    #[test]
    fn unwanted_literal_values_are_skipped_but_the_table_stays_exact() {
        let mut d = Decoder::new(4096);
        let mut e = Encoder::new();
        let mut block = Vec::new();
        e.encode(
            [
                (&b":status"[..], &b"200"[..]),
                (b"date", b"Mon"),
                (b"server-timing", b"queue;dur=1"),
            ],
            &mut block,
        );
        let mut seen = Vec::new();
        d.decode(&block, |n| n != b"date", |n, v| seen.push((n.to_vec(), v.to_vec())))
            .unwrap();
        assert_eq!(seen.len(), 2);
        assert_eq!(seen[1], (b"server-timing".to_vec(), b"queue;dur=1".to_vec()));
        // The second block is all indices into the table both sides now hold.
        let mut again = Vec::new();
        assert!(!e.encode([(&b"date"[..], &b"Mon"[..]), (b"server-timing", b"queue;dur=1")], &mut again));
        assert_eq!(again.len(), 2);
        let got = decode_all(&mut d, &again);
        assert_eq!(got, pairs(&[("date", "Mon"), ("server-timing", "queue;dur=1")]));
    }

    #[test]
    fn encoder_follows_a_smaller_peer_table() {
        let mut e = Encoder::new();
        let mut d = Decoder::new(4096);
        e.set_peer_max(64);
        let mut block = Vec::new();
        let big = vec![b'x'; 100];
        e.encode([(&b"x-big"[..], big.as_slice()), (b"x-a", b"1")], &mut block);
        assert_eq!(block[0], 0x3f, "a size update first"); // 001 11111 + 33
        let got = decode_all(&mut d, &block);
        assert_eq!(got[1], ("x-a".to_string(), "1".to_string()));
        assert_eq!(d.table.max, 64);
        assert_eq!(d.table.entries.len(), 1, "the 100-byte value was not indexed");
    }

    #[test]
    fn stateless_blocks_decode_the_same_whatever_the_table_holds() {
        let fields: [(&[u8], &[u8]); 5] = [
            (b":method", b"GET"),
            (b":path", b"/slow"),
            (b":authority", b"127.0.0.1:8080"),
            (b"x-name", b"b"),
            (b"accept-encoding", b"gzip, deflate"),
        ];
        let mut block = Vec::new();
        encode_stateless(fields, &mut block);
        assert_eq!(&block[..1], &[0x82], "GET is the static entry 2");
        assert_eq!(block[1], 0x04, "a literal without indexing, the name :path (static 4)");
        assert_eq!(*block.last().unwrap(), 0x90, "gzip, deflate is the static entry 16");
        let want = pairs(&[
            (":method", "GET"),
            (":path", "/slow"),
            (":authority", "127.0.0.1:8080"),
            ("x-name", "b"),
            ("accept-encoding", "gzip, deflate"),
        ]);
        // A fresh decoder, then one whose table is full of another request's fields (and evicting):
        // the same fields each time, and the table untouched by the block.
        let mut d = Decoder::new(4096);
        assert_eq!(decode_all(&mut d, &block), want);
        assert_eq!(d.table.size, 0);
        let mut e = Encoder::new();
        for i in 0..200 {
            let mut other = Vec::new();
            let v = format!("value-{i}");
            e.encode([(&b"x-name"[..], v.as_bytes()), (b":path", b"/fast")], &mut other);
            decode_all(&mut d, &other);
            let size = d.table.size;
            assert_eq!(decode_all(&mut d, &block), want, "after {i} other blocks");
            assert_eq!(d.table.size, size);
        }
        let mut again = Vec::new();
        encode_stateless(fields, &mut again);
        assert_eq!(again, block, "the same bytes every time");
    }

    #[test]
    fn huffman_every_byte_and_bad_padding() {
        // Encode every byte with the table by hand, pad with ones, decode.
        let input: Vec<u8> = (0..=255u8).collect();
        let (mut acc, mut bits, mut coded) = (0u64, 0u32, Vec::new());
        for &b in &input {
            let (code, len) = CODES[b as usize];
            acc = (acc << len) | code as u64;
            bits += len as u32;
            while bits >= 8 {
                bits -= 8;
                coded.push((acc >> bits) as u8);
            }
        }
        if bits > 0 {
            coded.push(((acc << (8 - bits)) as u8) | (0xff >> bits));
        }
        let mut out = Vec::new();
        huffman_decode(&coded, &mut out).unwrap();
        assert_eq!(out, input);
        // 'a' is 00011 (5 bits): padding with zeros, or a whole byte of ones, is refused.
        assert!(huffman_decode(&[0b0001_1000], &mut Vec::new()).is_err());
        assert!(huffman_decode(&[0b0001_1111, 0xff], &mut Vec::new()).is_err());
        assert!(huffman_decode(&[0b0001_1111], &mut Vec::new()).is_ok());
        assert!(huffman_decode(&[0xff, 0xff, 0xff, 0xff], &mut Vec::new()).is_err(), "EOS");
    }

    #[test]
    fn bad_blocks_are_errors() {
        let mut d = Decoder::new(4096);
        assert!(d.decode(&[0x80], |_| true, |_, _| {}).is_err(), "index 0");
        assert!(d.decode(&[0xbe], |_| true, |_, _| {}).is_err(), "index 62 with an empty table");
        assert!(d.decode(&[0x3f, 0xe2, 0x1f], |_| true, |_, _| {}).is_err(), "size update past ours");
        assert!(d.decode(&[0x40, 0x05, b'a'], |_| true, |_, _| {}).is_err(), "string cut short");
    }
}
