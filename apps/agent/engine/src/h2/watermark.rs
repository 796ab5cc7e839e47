//! How many bytes an HTTP/2 connection's socket should hold before it wakes the worker
//! (SO_RCVLOWAT), so that one wake-up takes a batch of responses instead of one or two.
//!
//! Why: a server that writes every response on its own (nginx does, one TLS record and one
//! write() each) wakes a client blocked in epoll_wait once per response, and the wake-up
//! (try_to_wake_up and its IPI to the client's core) is paid on the *server's* core, inside its
//! write(). Measured against nginx `http2 on` with 50 streams: the engine slept and was woken
//! ~60k times a second, about two responses each, and nginx spent ~7 % of its core waking it
//! (h2load, which does more work per wake-up, ~2 %). A socket below its low watermark does not
//! call its data-ready callback at all, so the server's write returns without waking anybody.
//!
//! The watermark asks for a share (1/`SHARE`) of the responses in flight, at the connection's
//! mean wire bytes per response: with that many streams still at the server it never runs out
//! of work while we wait, and a response waits at most for the few that the server finishes
//! next. Below `MIN_STREAMS` in flight, or before the mean is known, it is off (1 byte, the
//! kernel's default): a lone stream is never held.
//!
//! Above the watermark every further write of the server still called the data-ready callback
//! and woke the worker if it slept (nginx: 10 % of its samples in `sock_def_readable`, h2load's
//! 5 %), so while a socket is held the worker also takes it out of its epoll for reading and
//! reads it after each hold (`next_hold`: at most `HOLD_NS`, shorter for a server that would
//! otherwise run dry), whatever it holds — a stalled stream, a mix of small and large
//! responses, the end of a step are read on time. The watermark still decides whether a socket
//! is held, and still batches the wake-ups while a write waits (the socket is then watched for
//! reading too, as `conn.rs` asks).

/// The watermark covers this share of the streams in flight (1/SHARE of them).
pub const SHARE: usize = 8;
/// Fewer streams in flight than this: no watermark.
pub const MIN_STREAMS: usize = 16;
/// Responses to have seen on the connection before its mean size is trusted.
pub const MIN_SEEN: u64 = 64;
/// A held socket is read at least this often (ns): the longest a response can wait in it.
pub const HOLD_NS: u64 = 200_000;
/// The shortest hold (ns) the timed read shrinks to for a fast server.
pub const MIN_HOLD_NS: u64 = 20_000;
/// At most this many bytes (well under any socket's receive buffer, which the kernel caps it to).
pub const MAX_BYTES: usize = 32 * 1024;

/// The low watermark for a connection with `in_flight` streams that has read `wire_bytes` for
/// `responses` finished streams so far (TLS records included). 1 means off.
pub fn low_watermark(in_flight: usize, responses: u64, wire_bytes: u64) -> usize {
    if in_flight < MIN_STREAMS || responses < MIN_SEEN {
        return 1;
    }
    let per_response = (wire_bytes / responses).max(1) as usize;
    ((in_flight / SHARE) * per_response).clamp(1, MAX_BYTES)
}

/// Whether a watermark `now` set differs enough from `want` to be worth a setsockopt (a
/// syscall): any change to or from off, else a change of more than a quarter.
pub fn worth_changing(now: usize, want: usize) -> bool {
    if (now == 1) != (want == 1) {
        return true;
    }
    now.abs_diff(want) * 4 > now
}

/// The next hold (ns) after a timed read of held sockets that had `out` streams in flight and
/// found `got` of them finished. A held socket is out of the worker's epoll (the server's writes
/// wake nobody), so the timed read is its only reader and the hold bounds the rate: `out` streams
/// per hold at most. More than three quarters of them back in one hold: the server may run dry
/// while we sleep, halve it (down to `MIN_HOLD_NS`); fewer than 1/SHARE: the server is far from
/// that, lengthen it by a quarter (up to `HOLD_NS`), fewer reads for the same responses.
pub fn next_hold(hold_ns: u64, got: usize, out: usize) -> u64 {
    if got * 4 > out * 3 {
        (hold_ns / 2).max(MIN_HOLD_NS)
    } else if got * SHARE < out {
        (hold_ns + hold_ns / 4).min(HOLD_NS)
    } else {
        hold_ns
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hold_shrinks_when_a_read_finds_most_streams_done_and_grows_when_it_finds_few() {
        // 50 streams out, 40 back: the server may run dry, halve.
        assert_eq!(next_hold(HOLD_NS, 40, 50), HOLD_NS / 2);
        assert_eq!(next_hold(HOLD_NS, 30, 50), HOLD_NS);
        assert_eq!(next_hold(MIN_HOLD_NS, 50, 50), MIN_HOLD_NS);
        // 20 of 50 (nginx at ~100k/s in 200 us): kept.
        assert_eq!(next_hold(HOLD_NS, 20, 50), HOLD_NS);
        // 2 of 50: a slow server, lengthen (never past HOLD_NS).
        assert_eq!(next_hold(100_000, 2, 50), 125_000);
        assert_eq!(next_hold(HOLD_NS, 0, 50), HOLD_NS);
        // A fast server settles where a hold brings back at most three quarters of the streams:
        // from the longest hold, one finishing a stream every 500 ns with 50 out reaches <= 25 us.
        let mut hold = HOLD_NS;
        for _ in 0..20 {
            let got = ((hold / 500) as usize).min(50);
            hold = next_hold(hold, got, 50);
        }
        assert!((MIN_HOLD_NS..=25_000).contains(&hold), "{hold}");
    }

    #[test]
    fn off_for_few_streams_or_an_unknown_mean() {
        assert_eq!(low_watermark(MIN_STREAMS - 1, 10_000, 1_000_000), 1);
        assert_eq!(low_watermark(50, MIN_SEEN - 1, 10_000), 1);
        assert_eq!(low_watermark(0, 0, 0), 1);
    }

    #[test]
    fn a_share_of_the_responses_in_flight_at_their_mean_size() {
        // 50 streams, 80 wire bytes a response: 6 responses' worth.
        assert_eq!(low_watermark(50, 1_000, 80_000), 6 * 80);
        assert_eq!(low_watermark(MIN_STREAMS, MIN_SEEN, MIN_SEEN * 100), 2 * 100);
        // Never more than the cap, whatever the responses weigh.
        assert_eq!(low_watermark(1_000, 100, 100 * 1_000_000), MAX_BYTES);
    }

    #[test]
    fn the_watermark_never_asks_for_more_than_the_streams_still_out_can_send() {
        // Whatever is in flight, the watermark is at most 1/SHARE of what those streams' responses
        // weigh on average: the rest of them keep the server busy while we wait.
        for in_flight in 0..300 {
            for per in [1u64, 37, 80, 1_500, 70_000] {
                let w = low_watermark(in_flight, 1_000, 1_000 * per) as u64;
                assert!(
                    w == 1 || w * SHARE as u64 <= in_flight as u64 * per,
                    "{in_flight} streams of {per}: {w}"
                );
            }
        }
    }

    #[test]
    fn small_changes_are_not_worth_a_syscall() {
        assert!(worth_changing(1, 480));
        assert!(worth_changing(480, 1));
        assert!(!worth_changing(480, 400));
        assert!(!worth_changing(480, 560));
        assert!(worth_changing(480, 300));
        assert!(!worth_changing(1, 1));
    }
}
