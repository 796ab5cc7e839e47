//! How long each turn of a worker's event loop took: a request whose bytes arrive during a turn
//! waits for the turn to end, so a turn's length is the lag the engine adds (the native
//! counterpart of Node's event-loop delay). Log-bucketed: constant memory at any rate.

const SUB: u32 = 4;
const BUCKETS: usize = 64 * SUB as usize;

pub struct LoopStats {
    counts: Vec<u64>,
    total: u64,
    pub busy_ns: u64,
}

impl Default for LoopStats {
    fn default() -> Self {
        LoopStats {
            counts: vec![0; BUCKETS],
            total: 0,
            busy_ns: 0,
        }
    }
}

/// Bucket of a duration in µs: exact below 8 µs, then four per power of two.
fn bucket(us: u64) -> usize {
    if us < 8 {
        return us as usize;
    }
    let log = 63 - us.leading_zeros();
    let frac = (us >> (log - 2)) & 0b11;
    (8 + (log as usize - 3) * SUB as usize + frac as usize).min(BUCKETS - 1)
}

/// The largest µs value in a bucket (a percentile reads high, never low).
fn bucket_top(b: usize) -> u64 {
    if b < 8 {
        return b as u64;
    }
    let log = 3 + (b - 8) as u32 / SUB;
    let frac = ((b - 8) as u32 % SUB) as u64;
    let base = 1u64 << log;
    base + (base >> 2) * (frac + 1) - 1
}

impl LoopStats {
    pub fn add(&mut self, ns: u64) {
        self.counts[bucket(ns / 1000)] += 1;
        self.total += 1;
        self.busy_ns += ns;
    }

    pub fn merge(&mut self, other: &LoopStats) {
        for (a, b) in self.counts.iter_mut().zip(&other.counts) {
            *a += b;
        }
        self.total += other.total;
        self.busy_ns += other.busy_ns;
    }

    /// The p-th percentile turn, ms (0 with no turns).
    pub fn percentile_ms(&self, p: f64) -> f64 {
        if self.total == 0 {
            return 0.0;
        }
        let rank = ((p / 100.0) * self.total as f64).ceil().max(1.0) as u64;
        let mut seen = 0;
        for (b, &n) in self.counts.iter().enumerate() {
            seen += n;
            if seen >= rank {
                return bucket_top(b) as f64 / 1000.0;
            }
        }
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_cover_their_values() {
        for us in [0u64, 1, 2, 3, 5, 7, 8, 100, 999, 1_000, 65_537, 10_000_000] {
            let b = bucket(us);
            assert!(bucket_top(b) >= us, "{us} in bucket {b} tops at {}", bucket_top(b));
            assert!(b == 0 || bucket_top(b - 1) < us, "{us}: bucket {b} is not the first that holds it");
        }
    }

    #[test]
    fn percentiles_read_within_a_quarter_octave() {
        let mut s = LoopStats::default();
        for _ in 0..990 {
            s.add(10_000); // 10 µs
        }
        for _ in 0..10 {
            s.add(4_000_000); // 4 ms
        }
        assert!(s.percentile_ms(50.0) >= 0.010 && s.percentile_ms(50.0) < 0.0125);
        assert!(s.percentile_ms(99.0) < 0.0125);
        assert!(s.percentile_ms(99.5) >= 4.0 && s.percentile_ms(99.5) < 5.0);
        assert_eq!(s.busy_ns, 990 * 10_000 + 10 * 4_000_000);
    }
}
