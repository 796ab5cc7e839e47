//! What happens on one connection: connect, write the request, read the response, reuse or
//! close, and every failure as an error event. Methods of the worker, which owns the connections.
//!
//! Over TLS the same steps go through a rustls `ClientConnection` (the pattern of rustls'
//! `tlsclient-mio` example): socket bytes in with `read_tls` + `process_new_packets`, plaintext out
//! of `reader()`; the request into `writer()`, records out with `write_tls`. The handshake runs
//! between the TCP connect and the request's send time, and its duration is recorded per
//! connection.

use super::{ms, Worker};
use crate::config::Mode;
use crate::errors;
use crate::http::{ParseError, Progress, Response, ResponseReader};
use crate::wire::Event;
use mio::net::TcpStream;
use mio::{Interest, Token};
use rustls::ClientConnection;
use std::io::{self, Read, Write};

pub(super) struct Req {
    pub(super) intended_ns: u64,
    pub(super) sent_ns: Option<u64>,
    /// Which request of the mix (its bytes in `Worker::requests`; 0 without a mix).
    pub(super) idx: u16,
}

pub(super) enum State {
    Connecting,
    /// TCP is up, the TLS handshake is not done: the request waits.
    Handshaking,
    Idle,
    Busy,
}

pub(super) struct Conn {
    pub(super) stream: TcpStream,
    pub(super) state: State,
    pub(super) reader: ResponseReader,
    pub(super) written: usize,
    pub(super) writable_interest: bool,
    pub(super) req: Option<Req>,
    pub(super) last_io_ns: u64,
    /// The TLS session (https:// targets), boxed: it is large and plain connections have none.
    pub(super) tls: Option<Box<ClientConnection>>,
    /// When TCP connected: the TLS handshake's start.
    pub(super) connected_ns: u64,
    /// HTTP/2 connections: the session and what waits for it (`h2conn.rs`); `req`, `reader`
    /// and `written` are HTTP/1.1's.
    pub(super) h2: Option<Box<super::h2conn::H2Conn>>,
}

impl Conn {
    /// A write that would block: ask to be woken when the socket can take more (once, until it does).
    pub(super) fn want_writable(&mut self, registry: &mio::Registry, i: usize) {
        if !self.writable_interest {
            self.writable_interest = true;
            let _ = registry.reregister(&mut self.stream, Token(i), Interest::READABLE | Interest::WRITABLE);
        }
    }
}

impl Worker {
    /// Hands a request to an idle connection, or to a new one.
    pub(super) fn assign(&mut self, intended: u64, now: u64) {
        self.outstanding += 1;
        if self.cfg.mode == Mode::Open && self.in_window(intended) {
            self.open.sent += 1;
            if now.saturating_sub(intended) > self.late_ns {
                self.open.late += 1;
            }
        }
        // The connection's next request is picked by weight as it is handed over.
        let idx = self.pick_request();
        let head = self.requests.head[idx as usize];
        let req = Req {
            intended_ns: intended,
            sent_ns: None,
            idx,
        };
        if let Some(i) = self.idle.pop() {
            let c = self.conns[i].as_mut().expect("idle connection exists");
            c.req = Some(req);
            c.reader.set_head_request(head);
            c.state = State::Busy;
            c.last_io_ns = now;
            self.write(i, now);
            return;
        }
        match self.connect(now) {
            Ok(i) => {
                let c = self.conns[i].as_mut().expect("new connection");
                c.req = Some(req);
                c.reader.set_head_request(head);
            }
            Err(e) => self.fail_unsent(req, errors::kind_of(&e), now),
        }
    }

    pub(super) fn connect(&mut self, now: u64) -> io::Result<usize> {
        let tls = match &self.tls {
            Some((config, name)) => Some(Box::new(
                ClientConnection::new(config.clone(), name.clone()).map_err(io::Error::other)?,
            )),
            None => None,
        };
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
            reader: ResponseReader::new(false),
            written: 0,
            writable_interest: true,
            req: None,
            last_io_ns: now,
            tls,
            connected_ns: now,
            h2: None,
        });
        self.conn_count += 1;
        self.opened += 1;
        Ok(i)
    }

    pub(super) fn on_ready(&mut self, i: usize, readable: bool, writable: bool) {
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
            let now = self.shared.now_ns();
            if c.tls.is_some() {
                // The ClientHello leaves now; the request once the handshake is done (tls_read).
                c.state = State::Handshaking;
                c.connected_ns = now;
                c.last_io_ns = now;
                return self.tls_send(i, now);
            }
            c.state = State::Busy;
            if c.h2.is_some() {
                return self.h2_write(i, now); // the preface and SETTINGS
            }
            self.write(i, now);
            return;
        }
        if c.h2.is_some() {
            return self.h2_on_ready(i, readable, writable);
        }
        if c.tls.is_some() {
            if writable {
                let now = self.now();
                self.tls_send(i, now);
            }
            // The slot may have been closed (and even reused by a new connection) meanwhile.
            let alive = self.conns[i].as_ref().is_some_and(|c| !matches!(c.state, State::Connecting));
            if readable && alive {
                self.tls_read(i);
            }
            return;
        }
        if writable {
            let c = self.conns[i].as_mut().expect("checked above");
            let pending = c
                .req
                .as_ref()
                .is_some_and(|r| r.sent_ns.is_some() && c.written < self.requests.bytes[r.idx as usize].len());
            if pending {
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
        if c.tls.is_some() {
            return self.tls_send(i, now);
        }
        let Some(req) = c.req.as_mut() else { return };
        if req.sent_ns.is_none() {
            req.sent_ns = Some(now);
            c.written = 0;
            self.on_wire += 1;
        }
        let request = &self.requests.bytes[req.idx as usize];
        loop {
            match c.stream.write(&request[c.written..]) {
                Ok(n) => {
                    c.written += n;
                    c.last_io_ns = now;
                    if c.written == request.len() {
                        if c.writable_interest {
                            c.writable_interest = false;
                            let _ = self.poll.registry().reregister(&mut c.stream, Token(i), Interest::READABLE);
                        }
                        return;
                    }
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    c.want_writable(self.poll.registry(), i);
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
                    return self.on_eof(i, now);
                }
                Ok(n) => {
                    let now = self.shared.now_ns();
                    c.last_io_ns = now;
                    if self.deliver(i, n, now) {
                        return;
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

    /// The first `n` bytes of `buf` are the response's next bytes. True when the connection is
    /// done with this read: the response ended (or the connection was dropped).
    fn deliver(&mut self, i: usize, n: usize, now: u64) -> bool {
        let c = self.conns[i].as_mut().expect("connection exists");
        if c.req.is_none() {
            // Bytes nobody asked for: the connection's framing is lost.
            self.drop_conn(i, None);
            return true;
        }
        match c.reader.feed(&self.buf[..n], &self.cfg.names) {
            Ok(Progress::Partial) => false,
            Ok(Progress::Done(resp, used)) => {
                self.complete(i, resp, now, used < n);
                true
            }
            Err(ParseError::Malformed) => {
                self.drop_conn(i, Some(errors::MALFORMED));
                true
            }
        }
    }

    /// The server closed the connection: a read-to-close body ends here, else the request fails.
    fn on_eof(&mut self, i: usize, now: u64) {
        let c = self.conns[i].as_mut().expect("connection exists");
        let busy = c.req.is_some();
        match c.reader.eof() {
            Some(resp) if busy => self.complete(i, resp, now, false),
            _ if busy => self.drop_conn(i, Some(errors::CLOSED_BY_PEER)),
            _ => self.drop_conn(i, None), // an idle keep-alive connection closed by the server
        }
    }

    /// TLS: hands the request's plaintext to rustls (taking the send time first, as `write`) once
    /// the handshake is done, and writes out whatever records rustls has — the handshake's
    /// flights, the request, alerts — until the socket would block.
    fn tls_send(&mut self, i: usize, now: u64) {
        let c = self.conns[i].as_mut().expect("connection exists");
        let tls = c.tls.as_mut().expect("a TLS connection");
        let sending = matches!(c.state, State::Busy);
        if sending {
            if let Some(req) = c.req.as_mut() {
                if req.sent_ns.is_none() {
                    req.sent_ns = Some(now);
                    c.written = 0;
                    self.on_wire += 1;
                }
            }
        }
        let request = c.req.as_ref().map_or(&[][..], |r| &self.requests.bytes[r.idx as usize][..]);
        loop {
            if sending && c.written < request.len() {
                // rustls takes what its outgoing buffer has room for; the rest after a flush.
                match tls.writer().write(&request[c.written..]) {
                    Ok(n) => c.written += n,
                    Err(e) => return self.drop_conn(i, Some(errors::kind_of(&e))),
                }
            }
            if !tls.wants_write() {
                break;
            }
            match tls.write_tls(&mut c.stream) {
                Ok(_) => c.last_io_ns = now,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    c.want_writable(self.poll.registry(), i);
                    return;
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return self.drop_conn(i, Some(errors::kind_of(&e))),
            }
        }
        if c.writable_interest {
            c.writable_interest = false;
            let _ = self.poll.registry().reregister(&mut c.stream, Token(i), Interest::READABLE);
        }
    }

    /// TLS: reads records until the socket is drained or the response ends; finishes the
    /// handshake (recording its time, then sending the request) and feeds the plaintext to the
    /// response reader as `read` does.
    fn tls_read(&mut self, i: usize) {
        loop {
            let c = self.conns[i].as_mut().expect("connection exists");
            let tls = c.tls.as_mut().expect("a TLS connection");
            let eof = match tls.read_tls(&mut c.stream) {
                Ok(0) => true,
                Ok(_) => false,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    let busy = c.req.is_some();
                    return self.drop_conn(i, busy.then(|| errors::kind_of(&e)));
                }
            };
            let now = self.shared.now_ns();
            c.last_io_ns = now;
            if let Err(e) = tls.process_new_packets() {
                // Tell the server why (best effort), then fail the request with the TLS kind.
                let _ = tls.write_tls(&mut c.stream);
                return self.drop_conn(i, Some(errors::tls_kind(&e)));
            }
            if matches!(c.state, State::Handshaking) && !tls.is_handshaking() {
                self.handshakes.add(now.saturating_sub(c.connected_ns));
                c.state = State::Busy;
                self.tls_send(i, now);
            } else if tls.wants_write() {
                self.tls_send(i, now);
            }
            loop {
                let Some(c) = self.conns[i].as_mut() else { return };
                let Some(tls) = c.tls.as_mut() else { return };
                match tls.reader().read(&mut self.buf) {
                    Ok(0) => return self.on_eof(i, now), // close_notify
                    Ok(n) => {
                        if self.deliver(i, n, now) {
                            return;
                        }
                    }
                    Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                    Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return self.on_eof(i, now),
                    Err(e) => return self.drop_conn(i, Some(errors::kind_of(&e))),
                }
            }
            if eof {
                return self.on_eof(i, now);
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
            request: req.idx,
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

    /// A connection failed or closed: its request (if any) is an error event with `kind`.
    fn drop_conn(&mut self, i: usize, kind: Option<u8>) {
        let c = self.conns[i].as_mut().expect("connection exists");
        if c.h2.is_some() {
            // (A connect or handshake failure of an HTTP/2 connection: its streams and waiting requests.)
            return self.h2_drop(i, kind.unwrap_or(errors::CLOSED_BY_PEER));
        }
        let req = c.req.take();
        self.close(i);
        let Some(req) = req else { return };
        let now = self.now();
        let kind = kind.unwrap_or(errors::CLOSED_BY_PEER);
        if req.sent_ns.is_none() {
            return self.fail_unsent(req, kind, now);
        }
        self.on_wire -= 1;
        self.outstanding -= 1;
        self.record_error(&req, kind, now);
        self.burn_cpu();
        self.next_request(now, true);
    }

    /// A request that never left (the connect failed).
    pub(super) fn fail_unsent(&mut self, req: Req, kind: u8, now: u64) {
        self.outstanding -= 1;
        self.record_error(&req, kind, now);
        self.next_request(now, false);
    }

    pub(super) fn record_error(&mut self, req: &Req, kind: u8, now: u64) {
        self.batch.push(Event {
            intended_ms: ms(req.intended_ns),
            sent_ms: req.sent_ns.map_or(f64::NAN, ms),
            ended_ms: ms(now),
            compute_ms: f64::NAN,
            queue_ms: f64::NAN,
            status: 0,
            kind,
            unparseable: 0,
            request: req.idx,
        });
    }

    pub(super) fn close(&mut self, i: usize) {
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
    pub(super) fn sweep_timeouts(&mut self, now: u64) {
        if self.h2.is_some() {
            return self.h2_sweep(now);
        }
        for i in 0..self.conns.len() {
            let Some(c) = self.conns[i].as_ref() else { continue };
            if c.req.is_none() || now.saturating_sub(c.last_io_ns) < self.timeout_ns {
                continue;
            }
            let kind = match c.state {
                State::Connecting | State::Handshaking => errors::CONNECT_TIMEOUT,
                _ if c.reader.started() => errors::BODY_STALLED,
                _ => errors::NO_RESPONSE,
            };
            self.drop_conn(i, Some(kind));
        }
    }
}
