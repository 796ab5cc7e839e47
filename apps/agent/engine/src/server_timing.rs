//! W3C Server-Timing, read as leniently as the TypeScript SDK reads it (`packages/agent-sdk/src/server-timing.ts`):
//! several header lines, comma-separated entries, params in any order and case, quoted values (a comma or
//! semicolon inside `desc="a, b"` splits nothing), only an entry's first `dur`, `dur` missing → null.
//! Anything malformed is skipped and counted, never fatal.

/// Which metric names feed compute and queue, in priority order (lower index wins).
#[derive(Clone, Debug)]
pub struct TimingNames {
    pub compute: Vec<String>,
    pub queue: Vec<String>,
}

impl Default for TimingNames {
    fn default() -> Self {
        TimingNames {
            compute: vec!["compute".into()],
            queue: vec!["queue".into()],
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Timings {
    pub compute_ms: Option<f64>,
    pub queue_ms: Option<f64>,
    pub unparseable: u32,
}

#[derive(Clone, Copy, PartialEq)]
enum Column {
    Compute,
    Queue,
}

/// Accumulates Server-Timing header lines of one response.
pub struct TimingReader<'a> {
    names: &'a TimingNames,
    out: Timings,
    compute_rank: usize,
    queue_rank: usize,
}

impl<'a> TimingReader<'a> {
    pub fn new(names: &'a TimingNames) -> Self {
        TimingReader {
            names,
            out: Timings {
                compute_ms: None,
                queue_ms: None,
                unparseable: 0,
            },
            compute_rank: usize::MAX,
            queue_rank: usize::MAX,
        }
    }

    pub fn finish(self) -> Timings {
        self.out
    }

    /// One header line's value.
    pub fn add(&mut self, value: &[u8]) {
        let (entries, unterminated) = split_outside_quotes(value, b',');
        if unterminated {
            self.out.unparseable += 1;
        }
        for entry in entries {
            match read_entry(entry) {
                Entry::Skip => {}
                Entry::Bad => self.out.unparseable += 1,
                Entry::Metric(name, dur) => {
                    let Some(dur) = dur else { continue };
                    let Some((column, rank)) = self.wanted(name) else { continue };
                    let (slot, best) = match column {
                        Column::Compute => (&mut self.out.compute_ms, &mut self.compute_rank),
                        Column::Queue => (&mut self.out.queue_ms, &mut self.queue_rank),
                    };
                    if rank < *best {
                        *slot = Some(dur);
                        *best = rank;
                    }
                }
            }
        }
    }

    /// A name listed for both columns counts as queue, as in the SDK (its map is filled compute first).
    fn wanted(&self, name: &[u8]) -> Option<(Column, usize)> {
        let eq = |n: &String| n.as_bytes().eq_ignore_ascii_case(name);
        if let Some(rank) = self.names.queue.iter().position(eq) {
            return Some((Column::Queue, rank));
        }
        self.names.compute.iter().position(eq).map(|rank| (Column::Compute, rank))
    }
}

/// Parses all values of one response at once.
#[cfg(test)]
pub fn parse(values: &[&[u8]], names: &TimingNames) -> Timings {
    let mut r = TimingReader::new(names);
    for v in values {
        r.add(v);
    }
    r.finish()
}

enum Entry<'a> {
    Skip,
    Bad,
    Metric(&'a [u8], Option<f64>),
}

fn read_entry(entry: &[u8]) -> Entry<'_> {
    if trim(entry).is_empty() {
        return Entry::Skip; // a stray comma is not worth a complaint
    }
    let (parts, _) = split_outside_quotes(entry, b';');
    let name = trim(parts[0]);
    if !is_token(name) {
        return Entry::Bad;
    }
    for param in &parts[1..] {
        let (key, value) = match param.iter().position(|&b| b == b'=') {
            Some(eq) => (&param[..eq], Some(&param[eq + 1..])),
            None => (&param[..], None),
        };
        if !trim(key).eq_ignore_ascii_case(b"dur") {
            continue;
        }
        let raw = value.map(|v| unquote(trim(v))).unwrap_or_default();
        return match parse_duration(&raw) {
            Some(d) => Entry::Metric(name, Some(d)),
            None => Entry::Bad,
        };
    }
    Entry::Metric(name, None)
}

/// A non-negative decimal (`12`, `1.5`, `.5`, `1e1`): durations, so a negative `dur` counts as malformed.
fn parse_duration(raw: &[u8]) -> Option<f64> {
    let (mantissa, exponent) = match raw.iter().position(|&b| b == b'e' || b == b'E') {
        Some(i) => (&raw[..i], Some(&raw[i + 1..])),
        None => (raw, None),
    };
    let digits = |s: &[u8]| s.iter().all(u8::is_ascii_digit);
    let ok_mantissa = match mantissa.iter().position(|&b| b == b'.') {
        Some(dot) => {
            let (int, frac) = (&mantissa[..dot], &mantissa[dot + 1..]);
            digits(int) && digits(frac) && (!int.is_empty() || !frac.is_empty())
        }
        None => !mantissa.is_empty() && digits(mantissa),
    };
    let ok_exponent = match exponent {
        None => true,
        Some(e) => {
            let e = e.strip_prefix(b"+").or_else(|| e.strip_prefix(b"-")).unwrap_or(e);
            !e.is_empty() && digits(e)
        }
    };
    if !(ok_mantissa && ok_exponent) {
        return None;
    }
    std::str::from_utf8(raw).ok()?.parse::<f64>().ok().filter(|d| d.is_finite())
}

/// RFC 9110 token characters.
fn is_token(s: &[u8]) -> bool {
    !s.is_empty() && s.iter().all(|&b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
}

fn trim(s: &[u8]) -> &[u8] {
    s.trim_ascii()
}

fn unquote(v: &[u8]) -> Vec<u8> {
    if v.len() >= 2 && v[0] == b'"' && v[v.len() - 1] == b'"' {
        let inner = &v[1..v.len() - 1];
        let mut out = Vec::with_capacity(inner.len());
        let mut i = 0;
        while i < inner.len() {
            if inner[i] == b'\\' && i + 1 < inner.len() {
                i += 1;
            }
            out.push(inner[i]);
            i += 1;
        }
        return out;
    }
    v.to_vec()
}

/// Splits on `sep` outside double quotes; a part whose quote never closes is left out and flagged.
fn split_outside_quotes(s: &[u8], sep: u8) -> (Vec<&[u8]>, bool) {
    let mut parts = Vec::new();
    let mut start = 0;
    let mut quoted = false;
    let mut i = 0;
    while i < s.len() {
        let b = s[i];
        if quoted && b == b'\\' && i + 1 < s.len() {
            i += 2;
            continue;
        }
        if b == b'"' {
            quoted = !quoted;
        } else if b == sep && !quoted {
            parts.push(&s[start..i]);
            start = i + 1;
        }
        i += 1;
    }
    if !quoted {
        parts.push(&s[start..]);
    }
    (parts, quoted)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(values: &[&str]) -> Timings {
        let v: Vec<&[u8]> = values.iter().map(|s| s.as_bytes()).collect();
        parse(&v, &TimingNames::default())
    }
    fn ok(queue: Option<f64>, compute: Option<f64>) -> Timings {
        Timings {
            compute_ms: compute,
            queue_ms: queue,
            unparseable: 0,
        }
    }

    #[test]
    fn reads_queue_and_compute_from_several_entries() {
        assert_eq!(p(&["queue;dur=12.5, compute;dur=48.1"]), ok(Some(12.5), Some(48.1)));
        assert_eq!(
            p(&["db;dur=3, cache;desc=\"hit\", compute;dur=7, queue;dur=0.25"]),
            ok(Some(0.25), Some(7.0))
        );
    }

    #[test]
    fn quoted_commas_and_semicolons_split_nothing_and_dur_is_read_in_any_position_and_case() {
        assert_eq!(
            p(&["compute;desc=\"parse, plan; run\";dur=20, QUEUE;DUR=1"]),
            ok(Some(1.0), Some(20.0))
        );
        assert_eq!(
            p(&["compute ; desc=\"say \\\"hi\\\", then go\" ; dur=\"9.5\""]),
            ok(None, Some(9.5))
        );
        assert_eq!(p(&["compute;dur=1e1"]), ok(None, Some(10.0)));
    }

    #[test]
    fn a_metric_without_dur_or_no_header_is_null() {
        assert_eq!(p(&["compute, queue;desc=\"waited\""]), ok(None, None));
        assert_eq!(p(&[]), ok(None, None));
        assert_eq!(p(&[""]), ok(None, None));
    }

    #[test]
    fn only_the_first_dur_and_the_first_entry_of_a_name_count() {
        assert_eq!(p(&["compute;dur=5;dur=99"]), ok(None, Some(5.0)));
        assert_eq!(p(&["queue;dur=2", "compute;dur=30, compute;dur=99"]), ok(Some(2.0), Some(30.0)));
    }

    #[test]
    fn malformed_entries_are_skipped_and_counted() {
        let t = |q, c, u| Timings {
            queue_ms: q,
            compute_ms: c,
            unparseable: u,
        };
        assert_eq!(p(&["compute;dur=abc, queue;dur=3"]), t(Some(3.0), None, 1));
        assert_eq!(p(&["compute;dur=-4"]), t(None, None, 1));
        assert_eq!(p(&["queue;dur=1, compute;desc=\"never closed;dur=5"]), t(Some(1.0), None, 1));
        assert!(p(&["{\"json\": true}"]).unparseable > 0);
        assert_eq!(p(&["queue;dur=1", "@@@", "a b;dur=2"]), t(Some(1.0), None, 2));
        assert_eq!(p(&["compute;dur=, queue;dur=Infinity"]), t(None, None, 2));
        assert_eq!(p(&["compute;dur=1e999"]), t(None, None, 1));
    }

    #[test]
    fn stray_commas_and_unknown_params_are_ignored() {
        assert_eq!(p(&[" , compute;dur=5;x=y, ,"]), ok(None, Some(5.0)));
    }

    #[test]
    fn other_names_in_priority_order_case_insensitive() {
        let names = TimingNames {
            compute: vec!["db".into()],
            queue: vec!["wait".into()],
        };
        assert_eq!(
            parse(&[b"DB;dur=12, wait;dur=3, compute;dur=99, queue;dur=98"], &names),
            ok(Some(3.0), Some(12.0))
        );
        let names = TimingNames {
            compute: vec!["app".into(), "total".into()],
            queue: vec!["queue".into()],
        };
        assert_eq!(parse(&[b"total;dur=50, app;dur=40"], &names), ok(None, Some(40.0)));
        assert_eq!(parse(&[b"total;dur=50"], &names), ok(None, Some(50.0)));
        // A higher-priority name without dur does not hide a lower one that has it.
        assert_eq!(parse(&[b"app, total;dur=50"], &names), ok(None, Some(50.0)));
    }
}
