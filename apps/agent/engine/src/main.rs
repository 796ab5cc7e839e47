//! kneeboard-engine: one step of a Kneeboard sweep — a closed or open loop over keep-alive
//! HTTP/1.1 or HTTP/2, plain or over TLS — with every request's times streamed to the `kneeboard` CLI on stdout. The contract
//! (flags in, frames out, `stop`/`cancel` on stdin) is in README.md.

mod config;
mod errors;
mod h2;
mod http;
mod loop_stats;
mod mix;
mod server_timing;
mod sys;
mod tls;
mod wire;
mod worker;

use config::{Config, Http, Mode};
use loop_stats::LoopStats;
use std::io::{BufRead, Write};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};
use wire::{json_frame, json_number, json_string};
use worker::{OpenCounts, Plan, Shared, TlsTarget, Worker};

/// The first send leaves this long after start-up, once the workers are running.
const START_DELAY: Duration = Duration::from_millis(5);
const PROGRESS_EVERY: Duration = Duration::from_millis(250);
/// After the end, the open loop's backlog may drain this long past the request timeout.
const DRAIN_GRACE_MS: f64 = 1_000.0;
/// What the engine asks of the kernel for its output's buffer (pipe or socket).
const OUTPUT_BUFFER_BYTES: usize = 1 << 20;

enum Msg {
    Stop,
    Cancel,
    WorkerDone,
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let cfg = match config::parse(&args) {
        Ok(c) => c,
        Err(message) => {
            if message.is_empty() {
                println!("{}", config::USAGE);
                std::process::exit(0);
            }
            eprintln!("kneeboard-engine: {message}\n{}", config::USAGE);
            std::process::exit(2);
        }
    };
    if let Err(e) = run(cfg) {
        eprintln!("kneeboard-engine: {e}");
        std::process::exit(1);
    }
}

/// `--http auto`: over TLS, what the server picks by ALPN (probed once, before the step); over
/// plain TCP there is no ALPN, and HTTP/1.1 is what an unknown server speaks.
fn resolve_http(cfg: &Config) -> std::io::Result<bool> {
    match (cfg.http, &cfg.tls) {
        (Http::H1, _) => Ok(false),
        (Http::H2, _) => Ok(true),
        (Http::Auto, None) => Ok(false),
        (Http::Auto, Some(o)) => {
            let config = tls::client_config(o, &[tls::ALPN_H2, tls::ALPN_HTTP11]).map_err(std::io::Error::other)?;
            let name = tls::server_name(o).map_err(std::io::Error::other)?;
            let timeout = Duration::from_secs_f64((cfg.timeout_ms / 1000.0).min(10.0));
            // A probe that fails decides nothing: HTTP/1.1, whose connections then fail as events.
            Ok(tls::server_picks_h2(config, name, cfg.addr, timeout).unwrap_or(false))
        }
    }
}

fn run(mut cfg: Config) -> std::io::Result<()> {
    let use_h2 = resolve_http(&cfg)?;
    cfg.http = if use_h2 { Http::H2 } else { Http::H1 };
    let cfg = Arc::new(cfg);
    let load = cfg.load;
    // Built once (the system's roots are read here), shared by every connection of every worker.
    let alpn = if use_h2 { tls::ALPN_H2 } else { tls::ALPN_HTTP11 };
    let tls_target: Option<TlsTarget> = match &cfg.tls {
        Some(o) => Some((
            tls::client_config(o, &[alpn]).map_err(std::io::Error::other)?,
            tls::server_name(o).map_err(std::io::Error::other)?,
        )),
        None => None,
    };
    // HTTP/2: how many connections the streams may use (each thread has at least one).
    let conns_limit = match (use_h2, cfg.connections) {
        (true, Some(n)) => n.min(cfg.max_connections),
        _ => cfg.max_connections,
    };
    // Never more threads than connections: a thread with no connection could send nothing.
    let threads = match cfg.mode {
        Mode::Closed => cfg.threads.min(load as usize).min(conns_limit),
        Mode::Open => cfg.threads.min(conns_limit),
    }
    .max(1);
    // Every request's bytes are built once, here; a worker picks an index per request (mix.rs).
    let requests = Arc::new(if cfg.mix.is_empty() {
        worker::Requests::one(
            http::build_request(&cfg.method, &cfg.path, &cfg.host, &cfg.headers, &cfg.body),
            cfg.method == "HEAD",
        )
    } else {
        worker::Requests::mix(&cfg.mix, &cfg.host)
    });
    // HTTP/2: the same requests as header fields; a mix's header blocks are encoded here, once.
    let h2_request = use_h2.then(|| {
        let https = cfg.tls.is_some();
        Arc::new(if cfg.mix.is_empty() {
            h2::Requests::one(h2::build_request(&cfg.method, https, &cfg.host, &cfg.path, &cfg.headers, &cfg.body))
        } else {
            h2::Requests::mix(
                cfg.mix
                    .iter()
                    .map(|e| h2::build_request(&e.method, https, &cfg.host, &e.path, &e.headers, &e.body))
                    .collect(),
            )
        })
    });

    let (frame_tx, frame_rx) = mpsc::channel::<Vec<u8>>();
    // The kernel's buffer between the engine and the CLI, as large as it will give (the CLI shares
    // a core with the engine and reads in bursts): fewer writer wake-ups on a full pipe.
    sys::enlarge_output_buffer(1, OUTPUT_BUFFER_BYTES);
    let writer = std::thread::Builder::new().name("writer".into()).spawn(move || {
        // fd 1 written directly: std's Stdout is line-buffered, and frames are binary — a 0x0A byte
        // in them would cut a burst into two writes.
        let mut out = std::io::BufWriter::with_capacity(1 << 20, sys::RawStdout);
        while let Ok(frame) = frame_rx.recv() {
            if out.write_all(&frame).is_err() {
                return;
            }
            // Batch the writes that are already waiting, then flush: one pipe write per burst.
            while let Ok(more) = frame_rx.try_recv() {
                if out.write_all(&more).is_err() {
                    return;
                }
            }
            if out.flush().is_err() {
                return;
            }
        }
    })?;

    let now_i = Instant::now();
    let now_epoch_ms = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs_f64() * 1000.0)
        .unwrap_or(0.0);
    let t0 = now_i + START_DELAY;
    let t0_epoch_ms = now_epoch_ms + START_DELAY.as_secs_f64() * 1000.0;
    let ns = |ms: f64| (ms * 1e6) as u64;
    let window_from_ns = ns(cfg.warmup_ms);
    let window_to_ns = ns(cfg.warmup_ms + cfg.duration_ms);
    let drain_until_ns = ns(cfg.warmup_ms + cfg.duration_ms + cfg.timeout_ms + DRAIN_GRACE_MS);
    let shared = Arc::new(Shared {
        t0,
        stop_ns: AtomicU64::new(window_to_ns),
        stopped: AtomicBool::new(false),
        cancel: AtomicBool::new(false),
        on_wire: (0..threads).map(|_| AtomicUsize::new(0)).collect(),
        connections: (0..threads).map(|_| AtomicUsize::new(0)).collect(),
    });

    let kinds: Vec<String> = errors::ERROR_KINDS.iter().map(|k| json_string(k)).collect();
    let hello = format!(
        "{{\"type\":\"hello\",\"protocol\":{},\"engine\":{},\"t0_epoch_ms\":{},\"threads\":{},\"addr\":{},\"tls\":{},\"http\":{},\"error_kinds\":[{}]}}",
        wire::PROTOCOL,
        json_string(concat!("kneeboard-engine ", env!("CARGO_PKG_VERSION"))),
        json_number(t0_epoch_ms),
        threads,
        json_string(&cfg.addr.to_string()),
        cfg.tls.is_some(),
        json_string(if use_h2 { "2" } else { "1.1" }),
        kinds.join(",")
    );
    let _ = frame_tx.send(json_frame(&hello));

    let (msg_tx, msg_rx) = mpsc::channel::<Msg>();
    let share = |total: usize, i: usize| total / threads + usize::from(i < total % threads);
    let conns_total = match cfg.mode {
        Mode::Closed => (load as usize).min(conns_limit),
        Mode::Open => conns_limit,
    };
    let global_gap_ns = if cfg.mode == Mode::Open { 1e9 / load } else { 0.0 };
    let mut handles = Vec::with_capacity(threads);
    let mut wakers = Vec::with_capacity(threads);
    for i in 0..threads {
        let plan = Plan {
            index: i,
            slots: if cfg.mode == Mode::Closed { share(load as usize, i) } else { 0 },
            max_conns: share(conns_total, i),
            // Threads interleave the schedule: thread i takes sends i, i+T, i+2T…
            first_due_ns: i as f64 * global_gap_ns,
            mean_gap_ns: global_gap_ns * threads as f64,
            window_from_ns,
            window_to_ns,
            drain_until_ns,
        };
        let (w, waker) = Worker::new(
            cfg.clone(),
            shared.clone(),
            plan,
            requests.clone(),
            frame_tx.clone(),
            tls_target.clone(),
            h2_request.clone(),
        )?;
        wakers.push(waker);
        let done = msg_tx.clone();
        handles.push(std::thread::Builder::new().name(format!("worker-{i}")).spawn(move || {
            let r = w.run();
            let _ = done.send(Msg::WorkerDone);
            r
        })?);
    }

    // stdin: `stop` (stop sending, close the window now), `cancel` (forget what is in flight).
    // EOF changes nothing: the step is bounded by its duration and the request timeout anyway.
    let stdin_tx = msg_tx.clone();
    std::thread::Builder::new().name("stdin".into()).spawn(move || {
        let stdin = std::io::stdin();
        for line in stdin.lock().lines() {
            match line.as_deref().map(str::trim) {
                Ok("stop") => {
                    let _ = stdin_tx.send(Msg::Stop);
                }
                Ok("cancel") => {
                    let _ = stdin_tx.send(Msg::Cancel);
                }
                Ok(_) => {}
                Err(_) => break,
            }
        }
    })?;
    drop(msg_tx);

    // The controller: window marks for the CPU, progress, stop and cancel, the end.
    let window_from = t0 + Duration::from_nanos(window_from_ns);
    let mut window_to = t0 + Duration::from_nanos(window_to_ns);
    let mut cpu_from: Option<(Instant, f64)> = None;
    let mut cpu_window: Option<(f64, f64)> = None;
    let mut connections_at_close: Option<usize> = None;
    let mut stopped_at_ms: Option<f64> = None;
    let mut next_progress = t0 + PROGRESS_EVERY;
    let mut running = threads;
    let sum = |v: &Vec<AtomicUsize>| v.iter().map(|a| a.load(Ordering::Relaxed)).sum::<usize>();
    let wake_all = |w: &Vec<Arc<mio::Waker>>| {
        for waker in w {
            let _ = waker.wake();
        }
    };
    while running > 0 {
        let now = Instant::now();
        let mut next = next_progress;
        if cpu_from.is_none() {
            next = next.min(window_from);
        } else if cpu_window.is_none() {
            next = next.min(window_to);
        }
        match msg_rx.recv_timeout(next.saturating_duration_since(now)) {
            Ok(Msg::WorkerDone) => running -= 1,
            Ok(Msg::Stop) => {
                if stopped_at_ms.is_none() {
                    let at = shared.now_ns();
                    stopped_at_ms = Some(at as f64 / 1e6);
                    shared.stop_ns.fetch_min(at, Ordering::Relaxed);
                    shared.stopped.store(true, Ordering::Relaxed);
                    window_to = window_to.min(Instant::now());
                    wake_all(&wakers);
                }
            }
            Ok(Msg::Cancel) | Err(RecvTimeoutError::Disconnected) => {
                shared.stop_ns.store(0, Ordering::Relaxed);
                shared.cancel.store(true, Ordering::Relaxed);
                wake_all(&wakers);
            }
            Err(RecvTimeoutError::Timeout) => {}
        }
        let now = Instant::now();
        if cpu_from.is_none() && now >= window_from && now < window_to {
            cpu_from = Some((now, sys::process_cpu_s()));
        }
        if cpu_window.is_none() && now >= window_to {
            if let Some((from, cpu0)) = cpu_from {
                cpu_window = Some((sys::process_cpu_s() - cpu0, now.duration_since(from).as_secs_f64()));
            }
            connections_at_close = Some(sum(&shared.connections));
            if cpu_from.is_none() {
                cpu_from = Some((now, 0.0)); // stopped during warm-up: no usage window
            }
        }
        if now >= next_progress {
            next_progress = now + PROGRESS_EVERY;
            let _ = frame_tx.send(json_frame(&format!(
                "{{\"type\":\"progress\",\"in_flight\":{}}}",
                sum(&shared.on_wire)
            )));
        }
    }

    let mut open = OpenCounts::default();
    let mut loops = LoopStats::default();
    let mut busiest = 0.0f64;
    let mut handshakes = tls::HandshakeStats::default();
    let mut opened = 0u64;
    let window_s = cpu_window.map(|(_, wall)| wall).unwrap_or(0.0);
    for h in handles {
        let r = h.join().map_err(|_| std::io::Error::other("a worker thread panicked"))?;
        open.intended += r.open.intended;
        open.sent += r.open.sent;
        open.late += r.open.late;
        open.missed += r.open.missed;
        if window_s > 0.0 {
            busiest = busiest.max(r.loop_stats.busy_ns as f64 / 1e9 / window_s);
        }
        loops.merge(&r.loop_stats);
        handshakes.merge(&r.handshakes);
        opened += r.opened;
    }
    let open_json = match cfg.mode {
        Mode::Open => format!(
            "{{\"intended\":{},\"sent\":{},\"late\":{},\"missed\":{}}}",
            open.intended, open.sent, open.late, open.missed
        ),
        Mode::Closed => "null".into(),
    };
    let usage_json = match cpu_window {
        Some((cpu_s, wall_s)) if wall_s > 0.0 => format!(
            "{{\"cpu_cores\":{},\"loop_utilization\":{},\"loop_delay_p99_ms\":{}}}",
            json_number(cpu_s / wall_s),
            json_number(busiest.min(1.0)),
            json_number(loops.percentile_ms(99.0))
        ),
        _ => "null".into(),
    };
    // Every handshake of the step (warm-up included): a level that keeps reconnecting shows here.
    let tls_json = if cfg.tls.is_some() {
        let (n, p50, p99, max) = handshakes.summary();
        format!(
            "{{\"handshakes\":{n},\"handshake_ms_p50\":{},\"handshake_ms_p99\":{},\"handshake_ms_max\":{}}}",
            json_number(p50),
            json_number(p99),
            json_number(max)
        )
    } else {
        "null".into()
    };
    let end = format!(
        "{{\"type\":\"end\",\"stopped_at_ms\":{},\"open\":{},\"usage\":{},\"connections\":{},\"opened\":{},\"tls\":{}}}",
        stopped_at_ms.map_or("null".into(), json_number),
        open_json,
        usage_json,
        connections_at_close.map_or("null".into(), |c| c.to_string()),
        opened,
        tls_json
    );
    let _ = frame_tx.send(json_frame(&end));
    drop(frame_tx);
    writer.join().map_err(|_| std::io::Error::other("the writer thread panicked"))?;
    Ok(())
}
