//! One worker thread: its own epoll loop, its own connections, its own share of the load, its own
//! event buffer. Nothing on this path takes a lock or waits for another thread; events leave in
//! batches through a channel that never blocks the sender.

use crate::config::{Arrivals, Config, Mode};
use crate::errors;
use crate::http::{ParseError, Progress, Response, ResponseReader};
use crate::loop_stats::LoopStats;
use crate::sys::Timer;
use crate::wire::{Event, EventBatch, KIND_CANCELLED};
use mio::net::TcpStream;
use mio::{Events, Interest, Poll, Token, Waker};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};
use std::io::{self, Read, Write};
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
}

struct Req {
    intended_ns: u64,
    sent_ns: Option<u64>,
}

enum State {
    Connecting,
    Idle,
    Busy,
}

struct Conn {
    stream: TcpStream,
    state: State,
    reader: ResponseReader,
    written: usize,
    writable_interest: bool,
    req: Option<Req>,
    last_io_ns: u64,
}

pub struct Worker {
    cfg: Arc<Config>,
    shared: Arc<Shared>,
    plan: Plan,
    request: Arc<Vec<u8>>,
    tx: Sender<Vec<u8>>,
    poll: Poll,
    timer: Timer,
    conns: Vec<Option<Conn>>,
    free: Vec<usize>,
    idle: Vec<usize>,
    conn_count: usize,
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
    head_request: bool,
}

impl Worker {
    pub fn new(
        cfg: Arc<Config>,
        shared: Arc<Shared>,
        plan: Plan,
        request: Arc<Vec<u8>>,
        tx: Sender<Vec<u8>>,
    ) -> io::Result<(Worker, Arc<Waker>)> {
        let poll = Poll::new()?;
        let waker = Arc::new(Waker::new(poll.registry(), WAKER)?);
        let timer = Timer::new(poll.registry(), TIMER)?;
        let seed = (plan.index as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ shared.t0.elapsed().as_nanos() as u64;
        let w = Worker {
            timeout_ns: (cfg.timeout_ms * 1e6) as u64,
            late_ns: (cfg.late_tolerance_ms * 1e6) as u64,
            head_request: cfg.method == "HEAD",
            batch: EventBatch::with_capacity(cfg.batch_events),
            next_due_ns: plan.first_due_ns,
            cfg,
            shared,
            plan,
            request,
            tx,
            poll,
            timer,
            conns: Vec::new(),
            free: Vec::new(),
            idle: Vec::new(),
            conn_count: 0,
            outstanding: 0,
            on_wire: 0,
            backlog: VecDeque::new(),
            wakeups: BinaryHeap::new(),
            rng: seed | 1,
            open: OpenCounts::default(),
            last_flush_ns: 0,
            next_sweep_ns: SWEEP_NS,
            buf: vec![0; READ_BUF],
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
                    if self.backlog.is_empty() && self.outstanding < self.plan.max_conns {
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
            Arrivals::Poisson => {
                // xorshift64*: a uniform in (0, 1], then an exponential gap with the same mean.
                self.rng ^= self.rng >> 12;
                self.rng ^= self.rng << 25;
                self.rng ^= self.rng >> 27;
                let u = ((self.rng.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 11) as f64 + 1.0) / (1u64 << 53) as f64;
                -u.ln() * self.plan.mean_gap_ns
            }
        }
    }

    /// A request that should leave now: on a free connection, or it waits in the backlog.
    fn submit(&mut self, intended: u64, now: u64) {
        if self.backlog.is_empty() && self.outstanding < self.plan.max_conns {
            self.assign(intended, now);
        } else {
            self.backlog.push_back(intended);
        }
    }

    /// Waiting requests take connections as they free up (oldest first; late, timed from when they were due).
    fn pump(&mut self, now: u64) {
        while self.outstanding < self.plan.max_conns {
            let Some(intended) = self.backlog.pop_front() else { break };
            self.assign(intended, now);
        }
    }

    fn abandon_backlog(&mut self) {
        let missed = self.backlog.iter().filter(|&&t| self.in_window(t)).count() as u64;
        self.open.missed += missed;
        self.backlog.clear();
    }

    /// Hands a request to an idle connection, or to a new one.
    fn assign(&mut self, intended: u64, now: u64) {
        self.outstanding += 1;
        if self.cfg.mode == Mode::Open && self.in_window(intended) {
            self.open.sent += 1;
            if now.saturating_sub(intended) > self.late_ns {
                self.open.late += 1;
            }
        }
        let req = Req {
            intended_ns: intended,
            sent_ns: None,
        };
        if let Some(i) = self.idle.pop() {
            let c = self.conns[i].as_mut().expect("idle connection exists");
            c.req = Some(req);
            c.state = State::Busy;
            c.last_io_ns = now;
            self.write(i, now);
            return;
        }
        match self.connect(now) {
            Ok(i) => self.conns[i].as_mut().expect("new connection").req = Some(req),
            Err(e) => self.fail_unsent(req, errors::kind_of(&e), now),
        }
    }

    fn connect(&mut self, now: u64) -> io::Result<usize> {
        let mut stream = TcpStream::connect(self.cfg.addr)?;
        let i = self.free.pop().unwrap_or_else(|| {
            self.conns.push(None);
            self.conns.len() - 1
        });
        if let Err(e) = self
            .poll
            .registry()
            .register(&mut stream, Token(i), Interest::READABLE | Interest::WRITABLE)
        {
            self.free.push(i);
            return Err(e);
        }
        self.conns[i] = Some(Conn {
            stream,
            state: State::Connecting,
            reader: ResponseReader::new(self.head_request),
            written: 0,
            writable_interest: true,
            req: None,
            last_io_ns: now,
        });
        self.conn_count += 1;
        Ok(i)
    }

    fn on_ready(&mut self, i: usize, readable: bool, writable: bool) {
        let Some(c) = self.conns.get_mut(i).and_then(|c| c.as_mut()) else {
            return;
        };
        if matches!(c.state, State::Connecting) {
            if !(readable || writable) {
                return;
            }
            match c.stream.take_error() {
                Ok(Some(e)) | Err(e) => return self.drop_conn(i, Some(errors::kind_of(&e))),
                Ok(None) => {}
            }
            match c.stream.peer_addr() {
                Ok(_) => {}
                Err(e) if e.kind() == io::ErrorKind::NotConnected => return, // still connecting
                Err(e) => return self.drop_conn(i, Some(errors::kind_of(&e))),
            }
            let _ = c.stream.set_nodelay(true);
            c.state = State::Busy;
            let now = self.now();
            self.write(i, now);
            return;
        }
        if writable {
            let c = self.conns[i].as_mut().expect("checked above");
            if c.req.as_ref().is_some_and(|r| r.sent_ns.is_some()) && c.written < self.request.len() {
                let now = self.now();
                self.write(i, now);
            }
        }
        if readable {
            self.read(i);
        }
    }

    /// Writes (the rest of) the request. The send time is taken just before the first write.
    fn write(&mut self, i: usize, now: u64) {
        let c = self.conns[i].as_mut().expect("connection exists");
        let Some(req) = c.req.as_mut() else { return };
        if req.sent_ns.is_none() {
            req.sent_ns = Some(now);
            c.written = 0;
            self.on_wire += 1;
        }
        loop {
            match c.stream.write(&self.request[c.written..]) {
                Ok(n) => {
                    c.written += n;
                    c.last_io_ns = now;
                    if c.written == self.request.len() {
                        if c.writable_interest {
                            c.writable_interest = false;
                            let _ = self.poll.registry().reregister(&mut c.stream, Token(i), Interest::READABLE);
                        }
                        return;
                    }
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    if !c.writable_interest {
                        c.writable_interest = true;
                        let _ = self
                            .poll
                            .registry()
                            .reregister(&mut c.stream, Token(i), Interest::READABLE | Interest::WRITABLE);
                    }
                    return;
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return self.drop_conn(i, Some(errors::kind_of(&e))),
            }
        }
    }

    fn read(&mut self, i: usize) {
        loop {
            let c = self.conns[i].as_mut().expect("connection exists");
            match c.stream.read(&mut self.buf) {
                Ok(0) => {
                    let now = self.shared.now_ns();
                    let busy = c.req.is_some();
                    match c.reader.eof() {
                        Some(resp) if busy => return self.complete(i, resp, now, false),
                        _ if busy => return self.drop_conn(i, Some(errors::CLOSED_BY_PEER)),
                        _ => return self.drop_conn(i, None), // an idle keep-alive connection closed by the server
                    }
                }
                Ok(n) => {
                    let now = self.shared.now_ns();
                    c.last_io_ns = now;
                    if c.req.is_none() {
                        // Bytes nobody asked for: the connection's framing is lost.
                        return self.drop_conn(i, None);
                    }
                    match c.reader.feed(&self.buf[..n], &self.cfg.names) {
                        Ok(Progress::Partial) => {}
                        Ok(Progress::Done(resp, used)) => {
                            let extra = used < n;
                            return self.complete(i, resp, now, extra);
                        }
                        Err(ParseError::Malformed) => return self.drop_conn(i, Some(errors::MALFORMED)),
                    }
                    if n < self.buf.len() {
                        return; // a short read drained the socket; the next bytes bring a new edge
                    }
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => {
                    let busy = c.req.is_some();
                    return self.drop_conn(i, busy.then(|| errors::kind_of(&e)));
                }
            }
        }
    }

    /// A response ended: record it, then reuse the connection (keep-alive) or close it.
    fn complete(&mut self, i: usize, resp: Response, now: u64, extra_bytes: bool) {
        let c = self.conns[i].as_mut().expect("connection exists");
        let req = c.req.take().expect("a response answers a request");
        let reusable = !resp.close && !extra_bytes;
        self.on_wire -= 1;
        self.outstanding -= 1;
        self.batch.push(Event {
            intended_ms: ms(req.intended_ns),
            sent_ms: req.sent_ns.map_or(f64::NAN, ms),
            ended_ms: ms(now),
            compute_ms: resp.timings.compute_ms.unwrap_or(f64::NAN),
            queue_ms: resp.timings.queue_ms.unwrap_or(f64::NAN),
            status: resp.status,
            kind: 0,
            unparseable: resp.timings.unparseable.min(255) as u8,
        });
        if reusable {
            c.state = State::Idle;
            c.written = 0;
            self.idle.push(i);
        } else {
            self.close(i);
        }
        self.burn_cpu();
        self.next_request(now, true);
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

    /// A connection failed or closed: its request (if any) is an error event with `kind`.
    fn drop_conn(&mut self, i: usize, kind: Option<u8>) {
        let c = self.conns[i].as_mut().expect("connection exists");
        let req = c.req.take();
        let connecting = matches!(c.state, State::Connecting);
        self.close(i);
        let Some(req) = req else { return };
        let now = self.now();
        let kind = kind.unwrap_or(errors::CLOSED_BY_PEER);
        if req.sent_ns.is_none() {
            let _ = connecting;
            return self.fail_unsent(req, kind, now);
        }
        self.on_wire -= 1;
        self.outstanding -= 1;
        self.record_error(&req, kind, now);
        self.burn_cpu();
        self.next_request(now, true);
    }

    /// A request that never left (the connect failed).
    fn fail_unsent(&mut self, req: Req, kind: u8, now: u64) {
        self.outstanding -= 1;
        self.record_error(&req, kind, now);
        self.next_request(now, false);
    }

    fn record_error(&mut self, req: &Req, kind: u8, now: u64) {
        self.record(Event {
            intended_ms: ms(req.intended_ns),
            sent_ms: req.sent_ns.map_or(f64::NAN, ms),
            ended_ms: ms(now),
            compute_ms: f64::NAN,
            queue_ms: f64::NAN,
            status: 0,
            kind,
            unparseable: 0,
        });
    }

    fn close(&mut self, i: usize) {
        if let Some(mut c) = self.conns[i].take() {
            let _ = self.poll.registry().deregister(&mut c.stream);
            if matches!(c.state, State::Idle) {
                self.idle.retain(|&x| x != i);
            }
            self.conn_count -= 1;
            self.free.push(i);
        }
    }

    /// Requests past the timeout since their last byte: errors, their connections closed.
    fn sweep_timeouts(&mut self, now: u64) {
        for i in 0..self.conns.len() {
            let Some(c) = self.conns[i].as_ref() else { continue };
            if c.req.is_none() || now.saturating_sub(c.last_io_ns) < self.timeout_ns {
                continue;
            }
            let kind = match c.state {
                State::Connecting => errors::CONNECT_TIMEOUT,
                _ if c.reader.started() => errors::BODY_STALLED,
                _ => errors::NO_RESPONSE,
            };
            self.drop_conn(i, Some(kind));
        }
    }

    /// Ctrl-C's second stage: requests still out are forgotten. They are reported as cancelled
    /// (not events) so the on-the-wire count still covers the time they were out.
    fn cancel_all(&mut self, now: u64) {
        for i in 0..self.conns.len() {
            let Some(c) = self.conns[i].as_mut() else { continue };
            if let Some(req) = c.req.take() {
                if let Some(sent) = req.sent_ns {
                    self.batch.push(Event {
                        intended_ms: ms(req.intended_ns),
                        sent_ms: ms(sent),
                        ended_ms: ms(now),
                        compute_ms: f64::NAN,
                        queue_ms: f64::NAN,
                        status: 0,
                        kind: KIND_CANCELLED,
                        unparseable: 0,
                    });
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

    fn record(&mut self, e: Event) {
        self.batch.push(e);
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
