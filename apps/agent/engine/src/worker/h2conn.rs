//! HTTP/2 connections in the worker's loop: the same sockets, TLS and timing points as HTTP/1.1
//! (`conn.rs`), with a `Session` (`crate::h2`) in place of the HTTP/1.1 reader. Concurrency is
//! streams: the backlog's requests go to the open connection with the fewest streams that has
//! room (the server's SETTINGS_MAX_CONCURRENT_STREAMS, and in a closed loop an even share of the
//! level), and a connection is opened when none has. A connection still connecting holds the
//! requests it is expected to take; if it fails, they fail as an HTTP/1.1 connect failure does.
//!
//! Times: a stream's send time is taken when its HEADERS are handed to the socket (streams
//! started in one loop turn leave in one write), its end when the frame with END_STREAM is read;
//! latency is from the intended time, as over HTTP/1.1.

use super::conn::{Req, State};
use super::{ms, Worker};
use crate::config::Mode;
use crate::errors;
use crate::h2::watermark;
use crate::h2::{Outcome, Session};
use crate::tls::ALPN_H2;
use crate::wire::{Event, KIND_CANCELLED};
use mio::{Interest, Token};
use std::collections::VecDeque;
use std::io::{self, Read, Write};
use std::os::fd::AsRawFd;

/// Marks a backlog entry that was sent once and refused by the server (REFUSED_STREAM, GOAWAY):
/// it goes again without being counted as a send twice. Times are ns since t0, far below 2^63.
pub(super) const RETRIED: u64 = 1 << 63;

pub(super) struct H2Conn {
    pub(super) session: Session,
    /// Requests (intended time, index in the mix) given to this connection before it was ready.
    waiting: VecDeque<(u64, u16)>,
    /// How much of `session.out` the socket (or rustls) has taken.
    out_pos: usize,
    was_ready: bool,
    /// Bytes queued that this loop turn's flush writes.
    dirty: bool,
    /// In the worker's `h2_dirty` list (written if dirty, its watermark set, at the turn's end).
    listed: bool,
    /// The socket's receive low watermark as set (1: the kernel's default), and what it is
    /// computed from: wire bytes read and streams finished on this connection (`h2::watermark`).
    lowat: usize,
    wire_in: u64,
    ended: u64,
    /// Readable interest taken off while a watermark holds the socket: the hold's timed read
    /// (`h2_read_held`) is then its only reader (`h2_watermark` says why).
    quiet: bool,
}

/// What the worker's epoll watches on an HTTP/2 socket: readable unless a watermark holds it
/// (`quiet`), writable while a write waits. Never empty (mio refuses that): a quiet socket with
/// nothing to write watches writable, which an idle socket's events (data in, ACKs) do not fire.
fn interest(quiet: bool, writable: bool) -> Interest {
    match (quiet, writable) {
        (false, false) => Interest::READABLE,
        (false, true) => Interest::READABLE | Interest::WRITABLE,
        (true, _) => Interest::WRITABLE,
    }
}

impl Worker {
    /// Streams a connection may carry: the server's limit, and in a closed loop an even share of
    /// the level over the connections it needs (or was given with `--connections`).
    fn h2_cap(&self, server_max: usize) -> usize {
        let server_max = server_max.max(1);
        if self.cfg.mode != Mode::Closed {
            return server_max;
        }
        let slots = self.plan.slots.max(1);
        let conns = if self.cfg.connections.is_some() {
            self.plan.max_conns.min(slots)
        } else {
            slots.div_ceil(server_max).min(self.plan.max_conns)
        };
        server_max.min(slots.div_ceil(conns.max(1)))
    }

    /// An open-loop send leaves the backlog: counted once (sent, and late if it is).
    fn h2_count_send(&mut self, entry: u64, now: u64) {
        let intended = entry & !RETRIED;
        if self.cfg.mode == Mode::Open && entry & RETRIED == 0 && self.in_window(intended) {
            self.open.sent += 1;
            if now.saturating_sub(intended) > self.late_ns {
                self.open.late += 1;
            }
        }
    }

    /// Hands waiting requests to streams: the least-loaded ready connection with room, else a
    /// connection still connecting that is expected to have room, else a new connection.
    pub(super) fn h2_pump(&mut self, now: u64) {
        let pending_cap = self.h2_cap(self.h2_max_streams);
        while let Some(&entry) = self.backlog.front() {
            let mut best: Option<(usize, usize)> = None;
            let mut connecting: Option<usize> = None;
            for (i, c) in self.conns.iter().enumerate() {
                let Some(h) = c.as_ref().and_then(|c| c.h2.as_ref()) else {
                    continue;
                };
                let s = &h.session;
                if s.closing() {
                    continue;
                }
                if s.ready() {
                    let active = s.active();
                    if active < self.h2_cap(s.max_streams()) && best.is_none_or(|(_, a)| active < a) {
                        best = Some((i, active));
                    }
                } else if connecting.is_none() && h.waiting.len() < pending_cap {
                    connecting = Some(i);
                }
            }
            let target = match (best, connecting) {
                (Some((i, _)), _) => Ok((i, true)),
                (None, Some(i)) => Ok((i, false)),
                (None, None) if self.conn_count < self.plan.max_conns => self.h2_connect(now).map(|i| (i, false)),
                (None, None) => break, // every connection is full: wait for a stream to end
            };
            self.backlog.pop_front();
            self.h2_count_send(entry, now);
            self.outstanding += 1;
            let intended = entry & !RETRIED;
            // Picked by weight as it is handed to a connection, as over HTTP/1.1 (a request put
            // back in the backlog, or refused by the server, is drawn again: the same odds).
            let idx = self.pick_request();
            match target {
                Ok((i, true)) => self.h2_start(i, intended, idx, now),
                Ok((i, false)) => {
                    let h = self.conns[i].as_mut().and_then(|c| c.h2.as_mut()).expect("an HTTP/2 connection");
                    h.waiting.push_back((intended, idx));
                }
                Err(e) => self.fail_unsent(
                    Req {
                        intended_ns: intended,
                        sent_ns: None,
                        idx,
                    },
                    errors::kind_of(&e),
                    now,
                ),
            }
        }
    }

    fn h2_start(&mut self, i: usize, intended: u64, idx: u16, now: u64) {
        let h = self.conns[i].as_mut().and_then(|c| c.h2.as_mut()).expect("an HTTP/2 connection");
        h.session.open(intended, now, idx);
        h.dirty = true;
        self.h2_list(i);
    }

    /// Connection i is seen to at the end of this loop turn (`h2_flush_dirty`).
    fn h2_list(&mut self, i: usize) {
        if let Some(h) = self.conns[i].as_mut().and_then(|c| c.h2.as_mut()) {
            if !h.listed {
                h.listed = true;
                self.h2_dirty.push(i);
            }
        }
    }

    fn h2_connect(&mut self, now: u64) -> io::Result<usize> {
        let requests = self.h2.clone().expect("an HTTP/2 step");
        let i = self.connect(now)?;
        let c = self.conns[i].as_mut().expect("new connection");
        c.h2 = Some(Box::new(H2Conn {
            session: Session::new(requests),
            waiting: VecDeque::new(),
            out_pos: 0,
            was_ready: false,
            dirty: false,
            listed: false,
            lowat: 1,
            wire_in: 0,
            ended: 0,
            quiet: false,
        }));
        Ok(i)
    }

    pub(super) fn h2_on_ready(&mut self, i: usize, readable: bool, writable: bool) {
        if writable {
            let now = self.now();
            self.h2_write(i, now);
        }
        if readable && self.conns[i].as_ref().is_some_and(|c| c.h2.is_some()) {
            self.h2_read(i);
            // The watermark is set at the turn's end, for the streams in flight once those
            // that ended here are replaced.
            self.h2_list(i);
        }
    }

    /// Sets the socket's receive low watermark for the streams now in flight, so the next
    /// wake-up takes a batch of responses (`h2::watermark` says why). While one is set the
    /// worker reads the socket after each hold (`h2_read_held`, at most `HOLD_NS`), whatever it holds.
    fn h2_watermark(&mut self, i: usize) {
        let Some(c) = self.conns[i].as_mut() else { return };
        let Some(h) = c.h2.as_mut() else { return };
        // Closed loop only: there a held response also holds its stream's next request, so the
        // loop's rate and latency stay one measurement (Little's law); in an open loop latency
        // runs from the due time and a hold would only add to it.
        let want = if matches!(c.state, State::Busy) && self.cfg.mode == Mode::Closed {
            watermark::low_watermark(h.session.active(), h.ended, h.wire_in)
        } else {
            1
        };
        if watermark::worth_changing(h.lowat, want) {
            let v = want as libc::c_int;
            // SAFETY: the descriptor is this connection's open socket; the value is a live c_int
            // of the size passed. A refusal leaves the kernel's default: only wake-ups change.
            let ok = unsafe {
                libc::setsockopt(
                    c.stream.as_raw_fd(),
                    libc::SOL_SOCKET,
                    libc::SO_RCVLOWAT,
                    (&v as *const libc::c_int).cast(),
                    std::mem::size_of::<libc::c_int>() as libc::socklen_t,
                )
            } == 0;
            if ok {
                h.lowat = want;
            }
        }
        // While held, the socket is out of the worker's epoll for reading: the server's writes
        // then find nobody to wake (each wake-up of a sleeping worker costs the *server* an IPI
        // inside its write, measured as sock_def_readable), and the timed read takes the batch.
        let quiet = h.lowat > 1;
        if quiet != h.quiet {
            h.quiet = quiet;
            let _ = self
                .poll
                .registry()
                .reregister(&mut c.stream, Token(i), interest(quiet, c.writable_interest));
        }
        if h.lowat > 1 && self.h2_hold_until.is_none() {
            self.h2_hold_until = Some(self.shared.now_ns() + self.h2_hold_ns);
        }
    }

    /// The hold's end: every connection with a watermark is read for what it has (a read that
    /// does not block returns what the socket holds, below the watermark too).
    pub(super) fn h2_read_held(&mut self, now: u64) {
        if self.h2_hold_until.is_none_or(|t| now < t) {
            return;
        }
        self.h2_hold_until = None;
        let (mut out, mut got) = (0, 0);
        for i in 0..self.conns.len() {
            let Some((active, ended)) = self.h2_held(i) else { continue };
            self.h2_read(i);
            self.h2_list(i);
            out += active;
            // A connection dropped by the read took all its streams with it.
            got += self.h2_held(i).map_or(active as u64, |(_, now_ended)| now_ended - ended) as usize;
        }
        self.h2_hold_ns = watermark::next_hold(self.h2_hold_ns, got, out);
    }

    /// A connection held below its watermark: its streams in flight and the streams it has ended.
    fn h2_held(&self, i: usize) -> Option<(usize, u64)> {
        let h = self.conns[i].as_ref()?.h2.as_ref()?;
        (h.lowat > 1).then(|| (h.session.active(), h.ended))
    }

    /// Writes what the session has queued: the send time of the streams started since the last
    /// write is now. Over TLS the bytes go through rustls; the handshake's own flights first.
    pub(super) fn h2_write(&mut self, i: usize, now: u64) {
        let Some(c) = self.conns[i].as_mut() else { return };
        let open = matches!(c.state, State::Busy);
        if !(open || matches!(c.state, State::Handshaking) && c.tls.is_some()) {
            return; // connecting: the bytes wait
        }
        let h = c.h2.as_mut().expect("an HTTP/2 connection");
        if open {
            h.dirty = false;
            self.on_wire += h.session.mark_sent(now);
        }
        loop {
            // During the TLS handshake only its own flights leave; HTTP/2 bytes wait for its end.
            let pending = if open { &h.session.out[h.out_pos..] } else { &[][..] };
            let wrote = match c.tls.as_mut() {
                None if pending.is_empty() => break,
                None => c.stream.write(pending),
                Some(tls) => {
                    if !pending.is_empty() {
                        // rustls takes what its buffer has room for; the rest after a flush.
                        match tls.writer().write(pending) {
                            Ok(n) => h.out_pos += n,
                            Err(e) => return self.h2_drop(i, errors::kind_of(&e)),
                        }
                    }
                    if !tls.wants_write() {
                        if open && h.out_pos < h.session.out.len() {
                            continue;
                        }
                        break;
                    }
                    tls.write_tls(&mut c.stream).map(|_| 0)
                }
            };
            match wrote {
                Ok(n) => {
                    h.out_pos += n;
                    c.last_io_ns = now;
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    c.want_writable(self.poll.registry(), i);
                    return;
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return self.h2_drop(i, errors::kind_of(&e)),
            }
        }
        if open {
            h.session.out.clear();
            h.out_pos = 0;
        }
        if c.writable_interest {
            c.writable_interest = false;
            let _ = self.poll.registry().reregister(&mut c.stream, Token(i), interest(h.quiet, false));
        }
    }

    /// Reads until the socket is drained: the TLS handshake's end (its time recorded, ALPN
    /// checked, the preface queued), then frames into the session.
    fn h2_read(&mut self, i: usize) {
        loop {
            let Some(c) = self.conns[i].as_mut() else { return };
            let now = self.shared.now_ns();
            let n = match c.tls.as_mut() {
                None => match c.stream.read(&mut self.buf) {
                    Ok(0) => return self.h2_drop(i, errors::CLOSED_BY_PEER),
                    Ok(n) => n,
                    Err(e) if e.kind() == io::ErrorKind::WouldBlock => return,
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                    Err(e) => return self.h2_drop(i, errors::kind_of(&e)),
                },
                Some(tls) => {
                    let eof = match tls.read_tls(&mut c.stream) {
                        Ok(0) => true,
                        Ok(n) => {
                            if let Some(h) = c.h2.as_mut() {
                                h.wire_in += n as u64;
                            }
                            false
                        }
                        Err(e) if e.kind() == io::ErrorKind::WouldBlock => return,
                        Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                        Err(e) => return self.h2_drop(i, errors::kind_of(&e)),
                    };
                    if let Err(e) = tls.process_new_packets() {
                        let _ = tls.write_tls(&mut c.stream);
                        return self.h2_drop(i, errors::tls_kind(&e));
                    }
                    if matches!(c.state, State::Handshaking) && !tls.is_handshaking() {
                        self.handshakes.add(now.saturating_sub(c.connected_ns));
                        if tls.alpn_protocol() != Some(ALPN_H2) {
                            // The server does not speak h2 here: nothing of this step can be sent.
                            return self.h2_drop(i, errors::H2_PROTOCOL);
                        }
                        c.state = State::Busy;
                        self.h2_write(i, now);
                    } else if tls.wants_write() {
                        self.h2_write(i, now);
                    }
                    let Some(c) = self.conns[i].as_mut() else { return };
                    let Some(tls) = c.tls.as_mut() else { return };
                    let mut total = 0;
                    loop {
                        match tls.reader().read(&mut self.buf[total..]) {
                            Ok(0) => return self.h2_drop(i, errors::CLOSED_BY_PEER), // close_notify
                            Ok(n) => {
                                total += n;
                                if total == self.buf.len() {
                                    break;
                                }
                            }
                            Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                            Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return self.h2_drop(i, errors::CLOSED_BY_PEER),
                            Err(e) => return self.h2_drop(i, errors::kind_of(&e)),
                        }
                    }
                    if total > 0 && !self.h2_feed(i, total, now) {
                        return;
                    }
                    if eof {
                        return self.h2_drop(i, errors::CLOSED_BY_PEER);
                    }
                    continue;
                }
            };
            c.last_io_ns = now;
            if !self.h2_feed(i, n, now) || n < self.buf.len() {
                return;
            }
        }
    }

    /// The first `n` bytes of `buf` into connection i's session, and what follows from them.
    /// False when the connection is gone.
    fn h2_feed(&mut self, i: usize, n: usize, now: u64) -> bool {
        let c = self.conns[i].as_mut().expect("connection exists");
        c.last_io_ns = now;
        let h = c.h2.as_mut().expect("an HTTP/2 connection");
        if c.tls.is_none() {
            h.wire_in += n as u64;
        }
        let before = h.session.active();
        if let Err(e) = h.session.on_bytes(&self.buf[..n], now, &self.cfg.names, &mut self.h2_done) {
            self.h2_drop(i, e.0);
            return false;
        }
        // (Bytes from the server only end streams: none start here.)
        h.ended += before.saturating_sub(h.session.active()) as u64;
        if !h.was_ready && h.session.ready() {
            // The server's limit is known: the requests that waited for it start (as many as fit).
            h.was_ready = true;
            self.h2_max_streams = h.session.max_streams();
            let cap = self.h2_cap(self.h2_max_streams);
            let waiting = std::mem::take(&mut self.conns[i].as_mut().and_then(|c| c.h2.as_mut()).expect("h2").waiting);
            let fit = waiting.len().min(cap);
            for &(intended, idx) in waiting.iter().take(fit) {
                self.h2_start(i, intended, idx, now);
            }
            // The rest go back to the front of the backlog, in order (already counted as sent).
            for &(intended, _) in waiting.iter().skip(fit).rev() {
                self.outstanding -= 1;
                self.backlog.push_front(intended | RETRIED);
            }
        }
        self.h2_outcomes(now);
        let Some(h) = self.conns[i].as_mut().and_then(|c| c.h2.as_mut()) else {
            return false;
        };
        if h.session.closing() && h.session.active() == 0 && h.waiting.is_empty() {
            self.close(i);
            return false;
        }
        if !h.session.out.is_empty() {
            h.dirty = true;
            self.h2_list(i);
        }
        true
    }

    /// Streams that ended: recorded as HTTP/1.1 responses and errors are; refused ones go again.
    fn h2_outcomes(&mut self, now: u64) {
        let mut done = std::mem::take(&mut self.h2_done);
        for o in done.drain(..) {
            match o {
                Outcome::Done {
                    intended_ns,
                    sent_ns,
                    request,
                    status,
                    timings,
                } => {
                    self.on_wire -= usize::from(sent_ns.is_some());
                    self.outstanding -= 1;
                    self.batch.push(Event {
                        intended_ms: ms(intended_ns),
                        sent_ms: sent_ns.map_or(f64::NAN, ms),
                        ended_ms: ms(now),
                        compute_ms: timings.compute_ms.unwrap_or(f64::NAN),
                        queue_ms: timings.queue_ms.unwrap_or(f64::NAN),
                        status,
                        kind: 0,
                        unparseable: timings.unparseable.min(255) as u8,
                        request,
                    });
                    self.burn_cpu();
                    self.next_request(now, true);
                }
                Outcome::Failed {
                    intended_ns,
                    sent_ns,
                    request,
                    kind,
                } => {
                    let req = Req {
                        intended_ns,
                        sent_ns,
                        idx: request,
                    };
                    if sent_ns.is_none() {
                        self.fail_unsent(req, kind, now);
                        continue;
                    }
                    self.on_wire -= 1;
                    self.outstanding -= 1;
                    self.record_error(&req, kind, now);
                    self.next_request(now, true);
                }
                Outcome::Retry { intended_ns, sent_ns } => {
                    self.on_wire -= usize::from(sent_ns.is_some());
                    self.outstanding -= 1;
                    self.backlog.push_front(intended_ns | RETRIED);
                }
            }
        }
        self.h2_done = done;
    }

    /// The connection failed or closed: its streams fail with `kind`, and so do the requests
    /// that waited for it (as a failed connect fails an HTTP/1.1 request).
    pub(super) fn h2_drop(&mut self, i: usize, kind: u8) {
        let Some(c) = self.conns[i].as_mut() else { return };
        let h = c.h2.as_mut().expect("an HTTP/2 connection");
        let waiting = std::mem::take(&mut h.waiting);
        h.session.fail_all(kind, &mut self.h2_done);
        self.close(i);
        let now = self.now();
        for (intended, request) in waiting {
            self.h2_done.push(Outcome::Failed {
                intended_ns: intended,
                sent_ns: None,
                request,
                kind,
            });
        }
        self.h2_outcomes(now);
    }

    /// Writes out every connection that has bytes queued this loop turn, and sets the receive
    /// watermark of each one read or written for the streams it now has in flight.
    pub(super) fn h2_flush_dirty(&mut self) {
        if self.h2_dirty.is_empty() {
            return;
        }
        let now = self.now();
        let mut dirty = std::mem::take(&mut self.h2_dirty);
        for &i in &dirty {
            let Some(h) = self.conns[i].as_mut().and_then(|c| c.h2.as_mut()) else {
                continue; // closed since (its slot may be a new connection, listed on its own)
            };
            if !h.listed {
                continue;
            }
            h.listed = false;
            if h.dirty {
                self.h2_write(i, now);
            }
            self.h2_watermark(i);
        }
        dirty.clear();
        self.h2_dirty = dirty;
    }

    /// Timeouts: a connection not ready in time fails what waits for it (`connect timeout`);
    /// a stream with nothing from the server in time fails alone (and is reset).
    pub(super) fn h2_sweep(&mut self, now: u64) {
        for i in 0..self.conns.len() {
            let Some(c) = self.conns[i].as_mut() else { continue };
            let Some(h) = c.h2.as_mut() else { continue };
            if !h.session.ready() {
                if !h.waiting.is_empty() && now.saturating_sub(c.last_io_ns) >= self.timeout_ns {
                    self.h2_drop(i, errors::CONNECT_TIMEOUT);
                }
                continue;
            }
            h.session.expire(now, self.timeout_ns, &mut self.h2_done);
            if !h.session.out.is_empty() {
                h.dirty = true;
                self.h2_list(i);
            }
            self.h2_outcomes(now);
        }
    }

    /// `cancel`: streams on the wire are reported cancelled (not events), then every connection closes.
    pub(super) fn h2_cancel_all(&mut self, now: u64) {
        for i in 0..self.conns.len() {
            let Some(h) = self.conns[i].as_mut().and_then(|c| c.h2.as_mut()) else {
                continue;
            };
            h.session.fail_all(KIND_CANCELLED, &mut self.h2_done);
            for o in self.h2_done.drain(..) {
                if let Outcome::Failed {
                    intended_ns,
                    sent_ns: Some(sent),
                    ..
                } = o
                {
                    self.batch.push(Event::cancelled(ms(intended_ns), ms(sent), ms(now)));
                }
            }
            self.close(i);
        }
    }
}
