//! Request mixes (`--requests-file`): the requests of a step and their weights, as the CLI writes
//! them, and the pick of the next request by weight. Each request's bytes are built once
//! (main.rs); per request the hot path pays one random number and one comparison here, and keeps
//! a `u16` index that goes out with the event (the CLI maps it to the request's name).

/// One request of the mix.
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    pub weight: f64,
    pub method: String,
    pub path: String,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

/// Requests in a mix, at most: the index travels as a `u16`.
pub const MAX_REQUESTS: usize = u16::MAX as usize;

/// The file: `kneeboard-requests 1`, then per request `R <weight> <METHOD> <path>`, a line
/// `H <name>: <value>` per header, and for a body `B <length>` followed by that many bytes.
pub fn parse(bytes: &[u8]) -> Result<Vec<Entry>, String> {
    let mut at = 0usize;
    let line = |at: &mut usize| -> Option<Result<String, String>> {
        if *at >= bytes.len() {
            return None;
        }
        let end = bytes[*at..].iter().position(|&b| b == b'\n').map_or(bytes.len(), |p| *at + p);
        let text = std::str::from_utf8(&bytes[*at..end])
            .map(str::to_string)
            .map_err(|_| "a line is not UTF-8".to_string());
        *at = end + 1;
        Some(text)
    };
    match line(&mut at) {
        Some(Ok(first)) if first == "kneeboard-requests 1" => {}
        _ => return Err("not a requests file (its first line must be `kneeboard-requests 1`)".into()),
    }
    let mut out: Vec<Entry> = Vec::new();
    while let Some(l) = line(&mut at) {
        let l = l?;
        let n = out.len();
        if let Some(rest) = l.strip_prefix("R ") {
            let mut parts = rest.splitn(3, ' ');
            let (w, m, p) = (parts.next(), parts.next(), parts.next());
            let (Some(w), Some(m), Some(p)) = (w, m, p) else {
                return Err(format!("request {}: `R <weight> <method> <path>`, got {l:?}", n + 1));
            };
            let weight = w.parse::<f64>().ok().filter(|w| w.is_finite() && *w > 0.0);
            let Some(weight) = weight else {
                return Err(format!("request {}: weight must be a number > 0, got {w:?}", n + 1));
            };
            if !p.starts_with('/') || m.is_empty() {
                return Err(format!("request {}: needs a method and a path starting with /, got {l:?}", n + 1));
            }
            out.push(Entry {
                weight,
                method: m.to_ascii_uppercase(),
                path: p.to_string(),
                headers: Vec::new(),
                body: Vec::new(),
            });
        } else if let Some(rest) = l.strip_prefix("H ") {
            let e = out.last_mut().ok_or("a header before any request")?;
            let (name, value) = rest
                .split_once(':')
                .ok_or_else(|| format!("request {n}: header 'Name: value', got {rest:?}"))?;
            e.headers.push((name.trim().to_string(), value.trim().to_string()));
        } else if let Some(len) = l.strip_prefix("B ") {
            let e = out.last_mut().ok_or("a body before any request")?;
            let len: usize = len.parse().map_err(|_| format!("request {n}: body length, got {len:?}"))?;
            if at + len > bytes.len() {
                return Err(format!("request {n}: the body is cut short"));
            }
            e.body = bytes[at..at + len].to_vec();
            at += len;
        } else if !l.is_empty() {
            return Err(format!("unknown line {l:?}"));
        }
        if out.len() > MAX_REQUESTS {
            return Err(format!("at most {MAX_REQUESTS} requests"));
        }
    }
    if out.is_empty() {
        return Err("holds no request".into());
    }
    Ok(out)
}

/// Picks an index by weight in O(1) (Vose's alias method): column `i` of `n` is taken with
/// probability `prob[i]`, else its `alias[i]`.
#[derive(Clone, Debug)]
pub struct Picker {
    prob: Vec<f64>,
    alias: Vec<u16>,
}

impl Picker {
    pub fn new(weights: &[f64]) -> Picker {
        let n = weights.len();
        let total: f64 = weights.iter().sum();
        let mut scaled: Vec<f64> = weights.iter().map(|w| w * n as f64 / total).collect();
        let mut prob = vec![1.0; n];
        let mut alias: Vec<u16> = (0..n as u16).collect();
        let (mut small, mut large): (Vec<usize>, Vec<usize>) = (0..n).partition(|&i| scaled[i] < 1.0);
        while let (Some(s), Some(&l)) = (small.pop(), large.last()) {
            prob[s] = scaled[s];
            alias[s] = l as u16;
            scaled[l] += scaled[s] - 1.0;
            if scaled[l] < 1.0 {
                large.pop();
                small.push(l);
            }
        }
        // Whatever is left is 1 up to rounding: kept as it is (prob 1, its own alias).
        Picker { prob, alias }
    }

    /// How many requests it picks from.
    pub fn count(&self) -> usize {
        self.prob.len()
    }

    /// `u` uniform in [0, 1).
    #[inline]
    pub fn pick(&self, u: f64) -> u16 {
        let x = u * self.prob.len() as f64;
        let i = (x as usize).min(self.prob.len() - 1);
        if x - (i as f64) < self.prob[i] {
            i as u16
        } else {
            self.alias[i]
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_requests_headers_and_bodies() {
        let file = b"kneeboard-requests 1\nR 5 GET /a?x=1\nH user-agent: kb\nH x-b: 1:2\nR 2.5 post /b\nB 5\nhe\nloR 1 HEAD /c\n";
        let e = parse(file).unwrap();
        assert_eq!(e.len(), 3);
        assert_eq!((e[0].weight, e[0].method.as_str(), e[0].path.as_str()), (5.0, "GET", "/a?x=1"));
        assert_eq!(e[0].headers, vec![("user-agent".into(), "kb".into()), ("x-b".into(), "1:2".into())]);
        assert_eq!((e[1].method.as_str(), e[1].body.as_slice()), ("POST", b"he\nlo".as_slice()));
        assert_eq!((e[2].method.as_str(), e[2].body.len()), ("HEAD", 0));
    }

    #[test]
    fn refuses_broken_files() {
        assert!(parse(b"R 1 GET /\n").unwrap_err().contains("kneeboard-requests 1"));
        assert!(parse(b"kneeboard-requests 1\n").unwrap_err().contains("no request"));
        assert!(parse(b"kneeboard-requests 1\nR 0 GET /\n").unwrap_err().contains("weight"));
        assert!(parse(b"kneeboard-requests 1\nR 1 GET x\n").unwrap_err().contains("path"));
        assert!(parse(b"kneeboard-requests 1\nR 1 GET /\nB 10\nab")
            .unwrap_err()
            .contains("cut short"));
        assert!(parse(b"kneeboard-requests 1\nH a: b\n").unwrap_err().contains("before any request"));
    }

    #[test]
    fn picks_follow_the_weights() {
        let p = Picker::new(&[5.0, 3.0, 2.0]);
        // A fine uniform grid over [0, 1): each index's share is its weight's, to the grid's step.
        let n = 100_000;
        let mut counts = [0usize; 3];
        for k in 0..n {
            counts[p.pick((k as f64 + 0.5) / n as f64) as usize] += 1;
        }
        assert_eq!(counts, [50_000, 30_000, 20_000]);
        assert_eq!(Picker::new(&[1.0]).pick(0.999), 0);
        let skew = Picker::new(&[1.0, 1e6]);
        let mut c = [0usize; 2];
        for k in 0..n {
            c[skew.pick((k as f64 + 0.5) / n as f64) as usize] += 1;
        }
        assert!(c[0] <= 1, "{c:?}");
    }
}
