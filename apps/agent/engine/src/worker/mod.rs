//! One worker thread: its own epoll loop, its own connections, its own share of the load, its own
//! event buffer. Nothing on this path takes a lock or waits for another thread; events leave in
//! batches through a channel that never blocks the sender. The loop and the load's schedule are
//! here; what happens on a connection is in `conn.rs`.

mod conn;
mod h2conn;

use crate::config::{Arrivals, Config, Mode};
use crate::h2;
use crate::http;
use crate::loop_stats::LoopStats;
use crate::mix::{Entry, Picker};
use crate::sys::{self, Timer};
use crate::tls::HandshakeStats;
use crate::wire::{Event, EventBatch};
use conn::Conn;
use mio::{Events, Poll, Token, Waker};
use rustls::pki_types::ServerName;
use rustls::ClientConfig;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};
use std::io;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc::Sender;
use std::sync::Arc;
use std::time::{Duration, Instant};

const WAKER: Token = Token(usize::MAX - 1);
const TIMER: Token = Token(usize::MAX - 2);
/// Timeouts are checked this often: a timed-out request is noticed at most this late.
const SWEEP_NS: u64 = 20_000_000;
/// A request that failed before it was sent (refused, EMFILE) is retried after this pause, so a
/// dead target costs a few thousand connection attempts a second, not a busy loop.
const RETRY_NS: u64 = 1_000_000;
/// Intended sends waiting for a connection, at most (as the Node engine); past it they are missed.
const MAX_BACKLOG: usize = 1_000_000;
const READ_BUF: usize = 64 * 1024;

/// What the controller and the workers share: all atomics, written rarely.
pub struct Shared {
    pub t0: Instant,
    /// Sending stops at this many ns after t0 (the planned end, or earlier on `stop`).
    pub stop_ns: AtomicU64,
    /// `stop` was asked for: the open loop's backlog is abandoned (counted missed) at once.
    pub stopped: AtomicBool,
    pub cancel: AtomicBool,
    /// Per worker: requests on the wire, and connections open (read for progress and health).
    pub on_wire: Vec<AtomicUsize>,
    pub connections: Vec<AtomicUsize>,
}

impl Shared {
    pub fn now_ns(&self) -> u64 {
        Instant::now().saturating_duration_since(self.t0).as_nanos() as u64
    }
}

/// One worker's share of the step.
pub struct Plan {
    pub index: usize,
    /// Closed loop: requests kept outstanding by this worker.
    pub slots: usize,
    /// Connections this worker may open.
    pub max_conns: usize,
    /// Open loop: this worker's first intended send and the gap between its sends (ns).
    pub first_due_ns: f64,
    pub mean_gap_ns: f64,
    pub window_from_ns: u64,
    pub window_to_ns: u64,
    /// Open loop: the backlog is given up at this time (the end + the request timeout + a grace).
    pub drain_until_ns: u64,
}

#[derive(Default, Clone, Copy)]
pub struct OpenCounts {
    pub intended: u64,
    pub sent: u64,
    pub late: u64,
    pub missed: u64,
}

pub struct WorkerResult {
    pub open: OpenCounts,
    /// Loop turns that began inside the window.
    pub loop_stats: LoopStats,
    /// TLS handshakes of the step's connections (none for http://).
    pub handshakes: HandshakeStats,
    /// Connections opened during the step (a reconnecting level opens many).
    pub opened: u64,
}

/// The step's HTTP/1.1 requests, each built once: one, or a `--requests-file` mix picked by weight.
pub struct Requests {
    pub bytes: Vec<Vec<u8>>,
    /// Per request: a HEAD, whose response has no body.
    pub head: Vec<bool>,
    pub picker: Picker,
}

impl Requests {
    pub fn one(bytes: Vec<u8>, head: bool) -> Requests {
        Requests {
            bytes: vec![bytes],
            head: vec![head],
            picker: Picker::new(&[1.0]),
        }
    }

    pub fn mix(entries: &[Entry], host: &str) -> Requests {
        Requests {
            bytes: entries
                .iter()
                .map(|e| http::build_request(&e.method, &e.path, host, &e.headers, &e.body))
                .collect(),
            head: entries.iter().map(|e| e.method == "HEAD").collect(),
            picker: Picker::new(&entries.iter().map(|e| e.weight).collect::<Vec<_>>()),
        }
    }
}

/// An https:// step's TLS: the shared client config and the server name (SNI) to ask for.
pub type TlsTarget = (Arc<ClientConfig>, ServerName<'static>);

pub struct Worker {
    cfg: Arc<Config>,
    shared: Arc<Shared>,
    plan: Plan,
    requests: Arc<Requests>,
    tx: Sender<Vec<u8>>,
    poll: Poll,
    timer: Timer,
    conns: Vec<Option<Conn>>,
    free: Vec<usize>,
    idle: Vec<usize>,
    conn_count: usize,
    opened: u64,
    outstanding: usize,
    on_wire: usize,
    backlog: VecDeque<u64>,
    /// Closed loop: times at which a worker slot sends its next request (think time, retry pause).
    wakeups: BinaryHeap<Reverse<u64>>,
    next_due_ns: f64,
    rng: u64,
    open: OpenCounts,
    batch: EventBatch,
    last_flush_ns: u64,
    next_sweep_ns: u64,
    buf: Vec<u8>,
    timeout_ns: u64,
    late_ns: u64,
    tls: Option<TlsTarget>,
    handshakes: HandshakeStats,
    /// HTTP/2 steps: the requests the streams send, as HTTP/2 fields (None: HTTP/1.1). A mix is
    /// picked with the same `requests.picker` as over HTTP/1.1 (same order).
    h2: Option<Arc<h2::Requests>>,
    /// HTTP/2: the servers' SETTINGS_MAX_CONCURRENT_STREAMS as last seen (100, the RFC's floor,
    /// until one says): how many requests a connection still connecting is expected to take.
    h2_max_streams: usize,
    /// HTTP/2: connections with bytes to write, flushed once at the end of the loop turn.
    h2_dirty: Vec<usize>,
    /// HTTP/2: streams that ended, handed from the sessions to the recorder.
    h2_done: Vec<h2::Outcome>,
    /// HTTP/2: when the sockets held below their receive low watermark are read anyway.
    h2_hold_until: Option<u64>,
    /// HTTP/2: how long a hold lasts (ns), set by what each timed read finds (`watermark::next_hold`).
    h2_hold_ns: u64,
}

impl Worker {
    pub fn new(
        cfg: Arc<Config>,
        shared: Arc<Shared>,
        plan: Plan,
        requests: Arc<Requests>,
        tx: Sender<Vec<u8>>,
        tls: Option<TlsTarget>,
        h2: Option<Arc<h2::Requests>>,
    ) -> io::Result<(Worker, Arc<Waker>)> {
        let poll = Poll::new()?;
        let waker = Arc::new(Waker::new(poll.registry(), WAKER)?);
        let timer = Timer::new(poll.registry(), TIMER)?;
        let seed = (plan.index as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ shared.t0.elapsed().as_nanos() as u64;
        let w = Worker {
            timeout_ns: (cfg.timeout_ms * 1e6) as u64,
            late_ns: (cfg.late_tolerance_ms * 1e6) as u64,
            batch: EventBatch::with_capacity(cfg.batch_events),
            next_due_ns: plan.first_due_ns,
            cfg,
            shared,
            plan,
            requests,
            tx,
            poll,
            timer,
            conns: Vec::new(),
            free: Vec::new(),
            idle: Vec::new(),
            conn_count: 0,
            opened: 0,
            outstanding: 0,
            on_wire: 0,
            backlog: VecDeque::new(),
            wakeups: BinaryHeap::new(),
            rng: seed | 1,
            open: OpenCounts::default(),
            last_flush_ns: 0,
            next_sweep_ns: SWEEP_NS,
            buf: vec![0; READ_BUF],
            tls,
            handshakes: HandshakeStats::default(),
            h2,
            h2_max_streams: 100,
            h2_dirty: Vec::new(),
            h2_done: Vec::new(),
            h2_hold_until: None,
            h2_hold_ns: h2::watermark::HOLD_NS,
        };
        Ok((w, waker))
    }

    pub fn run(mut self) -> WorkerResult {
        let mut events = Events::with_capacity(1024);
        let mut loop_stats = LoopStats::default();
        let start = self.shared.t0;
        if let Some(wait) = start.checked_duration_since(Instant::now()) {
            std::thread::sleep(wait);
        }
        if self.cfg.mode == Mode::Closed {
            let now = self.now();
            for _ in 0..self.plan.slots {
                self.submit(now, now);
            }
        }
        let mut abandoned = false;
        // Started at real-time priority: one above the CLI and the writer, which share the core,
        // until the worker's own turns come near filling it (then as before, for the rest of the step).
        let mut rt_raise = sys::RtRaise::this_thread();
        let mut rt_check_from = self.now();
        let mut rt_busy = 0;
        loop {
            let turn_start = self.now();
            if self.shared.cancel.load(Ordering::Relaxed) {
                self.cancel_all(turn_start);
                break;
            }
            for ev in events.iter() {
                match ev.token() {
                    WAKER => {}
                    TIMER => self.timer.clear(),
                    Token(i) => self.on_ready(i, ev.is_readable() || ev.is_read_closed() || ev.is_error(), ev.is_writable()),
                }
            }
            let now = self.now();
            if self.h2.is_some() {
                self.h2_read_held(now);
            }
            let stop_ns = self.shared.stop_ns.load(Ordering::Relaxed);
            let sending = now < stop_ns;
            if sending {
                self.fire_due(now, stop_ns);
            }
            let stopped = self.shared.stopped.load(Ordering::Relaxed);
            if self.cfg.mode == Mode::Open && !abandoned && (stopped || (!sending && now >= self.plan.drain_until_ns)) {
                self.abandon_backlog();
                abandoned = true;
            }
            self.pump(now);
            if now >= self.next_sweep_ns {
                self.sweep_timeouts(now);
                self.next_sweep_ns = now + SWEEP_NS;
            }
            if self.h2.is_some() {
                self.h2_flush_dirty();
            }
            if !self.batch.is_empty()
                && (self.batch.len() >= self.cfg.batch_events || now - self.last_flush_ns >= (self.cfg.batch_ms * 1e6) as u64)
            {
                self.flush(now);
            }
            self.shared.on_wire[self.plan.index].store(self.on_wire, Ordering::Relaxed);
            self.shared.connections[self.plan.index].store(self.conn_count, Ordering::Relaxed);
            let done = !sending && self.outstanding == 0 && self.backlog.is_empty();
            let turn_end = self.now();
            if turn_start >= self.plan.window_from_ns && turn_start < self.plan.window_to_ns.min(stop_ns) {
                loop_stats.add(turn_end - turn_start);
            }
            if rt_raise.is_some() {
                rt_busy += turn_end - turn_start;
                if turn_end - rt_check_from >= sys::RT_CHECK_NS {
                    if sys::engine_bound(rt_busy, turn_end - rt_check_from) {
                        if let Some(raise) = rt_raise.take() {
                            raise.lower();
                        }
                    }
                    rt_check_from = turn_end;
                    rt_busy = 0;
                }
            }
            if done {
                break;
            }
            let wake = self.next_wake(turn_end, sending, stop_ns);
            if let Some(at) = wake {
                self.timer.arm(at, Duration::from_nanos(at.saturating_sub(turn_end)));
            }
            if let Err(e) = self.poll.poll(&mut events, None) {
                if e.kind() != io::ErrorKind::Interrupted {
                    eprintln!("kneeboard-engine: poll failed: {e}");
                    self.cancel_all(self.now());
                    break;
                }
            }
        }
        let now = self.now();
        self.flush(now);
        self.shared.on_wire[self.plan.index].store(0, Ordering::Relaxed);
        WorkerResult {
            open: self.open,
            loop_stats,
            handshakes: self.handshakes,
            opened: self.opened,
        }
    }

    fn now(&self) -> u64 {
        self.shared.now_ns()
    }

    fn in_window(&self, t: u64) -> bool {
        t >= self.plan.window_from_ns && t < self.plan.window_to_ns
    }

    /// The next moment something is due: a send, a think-time wake-up, the stop, the drain's end,
    /// a timeout sweep or a batch hand-off. None: only I/O can wake us.
    fn next_wake(&self, now: u64, sending: bool, stop_ns: u64) -> Option<u64> {
        let mut at = u64::MAX;
        if sending {
            at = at.min(stop_ns);
            if self.cfg.mode == Mode::Open {
                at = at.min(self.next_due_ns.max(0.0) as u64);
            }
            if let Some(Reverse(t)) = self.wakeups.peek() {
                at = at.min(*t);
            }
        }
        if self.outstanding > 0 || !self.backlog.is_empty() {
            at = at.min(self.next_sweep_ns);
            if self.cfg.mode == Mode::Open && !self.backlog.is_empty() {
                at = at.min(self.plan.drain_until_ns);
            }
        }
        if !self.batch.is_empty() {
            at = at.min(self.last_flush_ns + (self.cfg.batch_ms * 1e6) as u64);
        }
        if let Some(t) = self.h2_hold_until {
            at = at.min(t);
        }
        (at != u64::MAX).then_some(at.max(now))
    }

    /// Sends that are due: the open loop's schedule, the closed loop's think-time wake-ups.
    fn fire_due(&mut self, now: u64, stop_ns: u64) {
        match self.cfg.mode {
            Mode::Open => {
                let until = now.min(stop_ns) as f64;
                while self.next_due_ns <= until && self.next_due_ns < stop_ns as f64 {
                    let due = self.next_due_ns as u64;
                    if self.in_window(due) {
                        self.open.intended += 1;
                    }
                    if self.h2.is_none() && self.backlog.is_empty() && self.outstanding < self.plan.max_conns {
                        self.assign(due, now);
                    } else if self.backlog.len() < MAX_BACKLOG {
                        self.backlog.push_back(due);
                    } else if self.in_window(due) {
                        self.open.missed += 1;
                    }
                    self.next_due_ns += self.gap_ns();
                }
            }
            Mode::Closed => {
                while let Some(&Reverse(t)) = self.wakeups.peek() {
                    if t > now {
                        break;
                    }
                    self.wakeups.pop();
                    self.submit(now, now);
                }
            }
        }
    }

    fn gap_ns(&mut self) -> f64 {
        match self.cfg.arrivals {
            Arrivals::Uniform => self.plan.mean_gap_ns,
            // An exponential gap with the same mean (u in (0, 1]).
            Arrivals::Poisson => -(1.0 - self.uniform()).ln() * self.plan.mean_gap_ns,
        }
    }

    /// xorshift64*: a uniform in [0, 1), from the worker's own seeded generator.
    fn uniform(&mut self) -> f64 {
        self.rng ^= self.rng >> 12;
        self.rng ^= self.rng << 25;
        self.rng ^= self.rng >> 27;
        (self.rng.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 11) as f64 / (1u64 << 53) as f64
    }

    /// The next request's index in the mix, by weight (0 without a mix: no random number drawn).
    pub(super) fn pick_request(&mut self) -> u16 {
        if self.requests.picker.count() == 1 {
            return 0;
        }
        let u = self.uniform();
        self.requests.picker.pick(u)
    }

    /// A request that should leave now: on a free connection, or it waits in the backlog.
    /// (HTTP/2: always the backlog, which `pump` hands to streams at the end of the loop turn.)
    fn submit(&mut self, intended: u64, now: u64) {
        if self.h2.is_none() && self.backlog.is_empty() && self.outstanding < self.plan.max_conns {
            self.assign(intended, now);
        } else {
            self.backlog.push_back(intended);
        }
    }

    /// Waiting requests take connections as they free up (oldest first; late, timed from when they were due).
    fn pump(&mut self, now: u64) {
        if self.h2.is_some() {
            return self.h2_pump(now);
        }
        while self.outstanding < self.plan.max_conns {
            let Some(intended) = self.backlog.pop_front() else { break };
            self.assign(intended, now);
        }
    }

    fn abandon_backlog(&mut self) {
        // (An HTTP/2 request sent and refused carries RETRIED: it counted as sent, not missed.)
        let missed = self.backlog.iter().filter(|&&t| self.in_window(t)).count() as u64;
        self.open.missed += missed;
        self.backlog.clear();
    }

    /// Closed loop: the worker slot that just finished sends again (after the think time), while sending lasts.
    fn next_request(&mut self, now: u64, was_sent: bool) {
        if self.cfg.mode != Mode::Closed || now >= self.shared.stop_ns.load(Ordering::Relaxed) {
            return;
        }
        let pause = if self.cfg.think_time_ms > 0.0 {
            (self.cfg.think_time_ms * 1e6) as u64
        } else if was_sent {
            0
        } else {
            RETRY_NS
        };
        if pause == 0 {
            self.submit(now, now);
        } else {
            self.wakeups.push(Reverse(now + pause));
        }
    }

    /// Ctrl-C's second stage: requests still out are forgotten. They are reported as cancelled
    /// (not events) so the on-the-wire count still covers the time they were out.
    fn cancel_all(&mut self, now: u64) {
        if self.h2.is_some() {
            self.h2_cancel_all(now);
        }
        for i in 0..self.conns.len() {
            let Some(c) = self.conns[i].as_mut() else { continue };
            if let Some(req) = c.req.take() {
                if let Some(sent) = req.sent_ns {
                    self.batch.push(Event::cancelled(ms(req.intended_ns), ms(sent), ms(now)));
                }
            }
            self.close(i);
        }
        self.outstanding = 0;
        self.on_wire = 0;
        if self.cfg.mode == Mode::Open {
            self.abandon_backlog();
        }
        self.backlog.clear();
    }

    fn flush(&mut self, now: u64) {
        self.last_flush_ns = now;
        if self.batch.is_empty() {
            return;
        }
        // The receiving end lives until every worker has been joined; a failed send means the
        // writer is gone (stdout closed), and there is nobody left to tell.
        let _ = self.tx.send(self.batch.encode());
    }

    /// The hidden test knob: time burnt per response, to starve the engine on purpose.
    fn burn_cpu(&self) {
        if self.cfg.cpu_burn_ms <= 0.0 {
            return;
        }
        let until = Instant::now() + Duration::from_secs_f64(self.cfg.cpu_burn_ms / 1000.0);
        while Instant::now() < until {
            std::hint::spin_loop();
        }
    }
}

fn ms(ns: u64) -> f64 {
    ns as f64 / 1e6
}
