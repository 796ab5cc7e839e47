//! The engine's flags: one step of a sweep, as the `kneeboard` CLI asks for it. Bad flags are a
//! message naming the flag and exit code 2; the CLI validates everything first, so these are for
//! people running the binary by hand.

use crate::server_timing::TimingNames;
use crate::tls::{host_of, TlsOptions};
use std::net::{SocketAddr, ToSocketAddrs};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Closed,
    Open,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arrivals {
    Uniform,
    Poisson,
}

/// Which HTTP the step speaks (`--http`; `--http2` is `--http 2`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Http {
    H1,
    H2,
    /// https://: ALPN offers h2 and http/1.1 and the server's pick is used (http://: HTTP/1.1).
    Auto,
}

#[derive(Clone, Debug)]
pub struct Config {
    pub addr: SocketAddr,
    pub host: String,
    pub path: String,
    pub method: String,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
    pub mode: Mode,
    /// Concurrency (closed) or requests/s (open).
    pub load: f64,
    pub threads: usize,
    pub warmup_ms: f64,
    pub duration_ms: f64,
    pub timeout_ms: f64,
    pub max_connections: usize,
    pub arrivals: Arrivals,
    pub think_time_ms: f64,
    pub cpu_burn_ms: f64,
    pub late_tolerance_ms: f64,
    pub names: TimingNames,
    /// A worker hands its events over at this many, or after `batch_ms`. Small on purpose: the
    /// CLI reads a frame in one go, and where it shares the engine's core (the benches, a
    /// one-core agent) the engine waits for it meanwhile. 256 events are ~0.3 ms of the CLI's
    /// work, less than the in-flight requests keep a server busy at c = 50 (~0.5 ms), so the
    /// server never runs dry; at 4,096 (~4 ms) it idled, ~10 % of an HTTP/2 step's req/s.
    pub batch_events: usize,
    pub batch_ms: f64,
    /// Set for an https:// URL: the connections speak TLS (rustls) under HTTP/1.1.
    pub tls: Option<TlsOptions>,
    pub http: Http,
    /// HTTP/2: the connections the streams are spread over (None: as many as the server's
    /// SETTINGS_MAX_CONCURRENT_STREAMS calls for, at least one per thread).
    pub connections: Option<usize>,
    /// `--requests-file`: a weighted mix of requests (HTTP/1.1 or HTTP/2); empty: the one request above.
    pub mix: Vec<crate::mix::Entry>,
}

pub const USAGE: &str = "usage: kneeboard-engine --url http[s]://host:port/path --mode closed|open --load N [--threads N]
  [--warmup-ms X] [--duration-ms X] [--timeout-ms X] [--method M] [--header 'Name: value']... [--body-file PATH]
  [--max-connections N] [--arrivals uniform|poisson] [--think-time-ms X] [--compute-metric a,b] [--queue-metric a,b]
  [--late-tolerance-ms X] [--batch-events N] [--batch-ms X] [--cpu-burn-ms X] [--insecure] [--ca-file PEM]
  [--http 1.1|2|auto] [--http2] [--connections N] [--requests-file PATH]
Events and control frames go to stdout (see README.md); stdin takes `stop` and `cancel` lines.";

pub fn parse(args: &[String]) -> Result<Config, String> {
    let mut url: Option<String> = None;
    let mut path: Option<String> = None;
    let mut c = Config {
        addr: SocketAddr::from(([127, 0, 0, 1], 80)),
        host: String::new(),
        path: String::new(),
        method: "GET".into(),
        headers: Vec::new(),
        body: Vec::new(),
        mode: Mode::Closed,
        load: 0.0,
        threads: std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1),
        warmup_ms: 0.0,
        duration_ms: 10_000.0,
        timeout_ms: 30_000.0,
        max_connections: 10_000,
        arrivals: Arrivals::Uniform,
        think_time_ms: 0.0,
        cpu_burn_ms: 0.0,
        late_tolerance_ms: 5.0,
        names: TimingNames::default(),
        batch_events: 256,
        batch_ms: 50.0,
        tls: None,
        http: Http::H1,
        connections: None,
        mix: Vec::new(),
    };
    let mut insecure = false;
    let mut ca_file: Option<String> = None;
    let mut load_set = false;
    let mut i = 0;
    while i < args.len() {
        let flag = args[i].as_str();
        let value = || args.get(i + 1).cloned().ok_or_else(|| format!("{flag}: needs a value"));
        let num = |min: f64| -> Result<f64, String> {
            let v = value()?;
            match v.parse::<f64>() {
                Ok(n) if n.is_finite() && n >= min => Ok(n),
                _ => Err(format!("{flag}: must be a number ≥ {min}, got {v:?}")),
            }
        };
        match flag {
            // The one flag without a value.
            "--insecure" => {
                insecure = true;
                i += 1;
                continue;
            }
            "--http2" => {
                c.http = Http::H2;
                i += 1;
                continue;
            }
            "--http" => {
                c.http = match value()?.as_str() {
                    "1.1" => Http::H1,
                    "2" => Http::H2,
                    "auto" => Http::Auto,
                    v => return Err(format!("--http: 1.1, 2 or auto, got {v:?}")),
                }
            }
            "--connections" => c.connections = Some(num(1.0)? as usize),
            "--ca-file" => ca_file = Some(value()?),
            "--url" => url = Some(value()?),
            "--path" => path = Some(value()?),
            "--mode" => {
                c.mode = match value()?.as_str() {
                    "closed" => Mode::Closed,
                    "open" => Mode::Open,
                    v => return Err(format!("--mode: closed or open, got {v:?}")),
                }
            }
            "--load" => {
                c.load = num(0.0)?;
                load_set = c.load > 0.0;
            }
            "--threads" => c.threads = num(1.0)? as usize,
            "--warmup-ms" => c.warmup_ms = num(0.0)?,
            "--duration-ms" => c.duration_ms = num(0.0)?,
            "--timeout-ms" => c.timeout_ms = num(1.0)?,
            "--method" => c.method = value()?.to_ascii_uppercase(),
            "--header" => {
                let v = value()?;
                let (name, val) = v.split_once(':').ok_or_else(|| format!("--header: 'Name: value', got {v:?}"))?;
                c.headers.push((name.trim().to_string(), val.trim().to_string()));
            }
            "--body-file" => {
                let p = value()?;
                c.body = std::fs::read(&p).map_err(|e| format!("--body-file: cannot read {p}: {e}"))?;
            }
            "--requests-file" => {
                let p = value()?;
                let bytes = std::fs::read(&p).map_err(|e| format!("--requests-file: cannot read {p}: {e}"))?;
                c.mix = crate::mix::parse(&bytes).map_err(|e| format!("--requests-file: {p}: {e}"))?;
            }
            "--max-connections" => c.max_connections = num(1.0)? as usize,
            "--arrivals" => {
                c.arrivals = match value()?.as_str() {
                    "uniform" => Arrivals::Uniform,
                    "poisson" => Arrivals::Poisson,
                    v => return Err(format!("--arrivals: uniform or poisson, got {v:?}")),
                }
            }
            "--think-time-ms" => c.think_time_ms = num(0.0)?,
            "--cpu-burn-ms" => c.cpu_burn_ms = num(0.0)?,
            "--late-tolerance-ms" => c.late_tolerance_ms = num(0.0)?,
            "--compute-metric" => c.names.compute = value()?.split(',').map(str::to_string).collect(),
            "--queue-metric" => c.names.queue = value()?.split(',').map(str::to_string).collect(),
            "--batch-events" => c.batch_events = num(1.0)? as usize,
            "--batch-ms" => c.batch_ms = num(1.0)?,
            "--help" | "-h" => return Err(String::new()),
            _ => return Err(format!("{flag}: unknown flag")),
        }
        i += 2;
    }
    let url = url.ok_or("--url: required")?;
    let (rest, https) = match (url.strip_prefix("http://"), url.strip_prefix("https://")) {
        (Some(r), _) => (r, false),
        (_, Some(r)) => (r, true),
        _ => return Err(format!("--url: an http:// or https:// URL, got {url:?}")),
    };
    let (authority, url_path) = match rest.find(['/', '?']) {
        Some(i) if rest.as_bytes()[i] == b'/' => (&rest[..i], rest[i..].to_string()),
        Some(i) => (&rest[..i], format!("/{}", &rest[i..])),
        None => (rest, "/".to_string()),
    };
    if authority.is_empty() || authority.contains('@') {
        return Err(format!("--url: needs host[:port] and no credentials, got {url:?}"));
    }
    let with_port = if authority
        .rsplit_once(':')
        .is_some_and(|(_, p)| p.bytes().all(|b| b.is_ascii_digit()))
        && !authority.ends_with(']')
    {
        authority.to_string()
    } else {
        format!("{authority}:{}", if https { 443 } else { 80 })
    };
    let mut addrs: Vec<SocketAddr> = with_port
        .to_socket_addrs()
        .map_err(|e| format!("--url: cannot resolve {authority}: {e}"))?
        .collect();
    // IPv4 first, as most loopback targets listen there.
    addrs.sort_by_key(|a| !a.is_ipv4());
    c.addr = *addrs.first().ok_or_else(|| format!("--url: {authority} has no address"))?;
    c.host = authority.to_string();
    if https {
        c.tls = Some(TlsOptions {
            server_name: host_of(authority).to_string(),
            insecure,
            ca_file,
        });
    } else if insecure || ca_file.is_some() {
        return Err("--insecure/--ca-file: only for an https:// URL".into());
    }
    if c.connections.is_some() && c.http == Http::H1 {
        return Err("--connections: only with --http2 or --http auto (HTTP/1.1 has one connection per request in flight)".into());
    }
    c.path = path.unwrap_or(url_path);
    if !c.path.starts_with('/') {
        return Err(format!("--path: must start with /, got {:?}", c.path));
    }
    if !load_set {
        return Err("--load: required, more than 0 (concurrency, or requests/s with --mode open)".into());
    }
    if c.mode == Mode::Closed && c.load.fract() != 0.0 {
        return Err("--load: a whole number of connections in a closed loop".into());
    }
    Ok(c)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &str) -> Vec<String> {
        s.split(' ').map(str::to_string).collect()
    }

    #[test]
    fn url_path_and_flags() {
        let c = parse(&args(
            "--url http://127.0.0.1:8080/a?b=1 --mode open --load 250 --threads 3 --header x-a:1 --arrivals poisson",
        ))
        .unwrap();
        assert_eq!(c.addr, "127.0.0.1:8080".parse().unwrap());
        assert_eq!(
            (c.host.as_str(), c.path.as_str(), c.mode, c.load, c.threads),
            ("127.0.0.1:8080", "/a?b=1", Mode::Open, 250.0, 3)
        );
        assert_eq!(c.arrivals, Arrivals::Poisson);
        assert_eq!(c.headers, vec![("x-a".to_string(), "1".to_string())]);
        let c = parse(&args("--url http://127.0.0.1:9 --load 2 --path /x")).unwrap();
        assert_eq!((c.path.as_str(), c.mode), ("/x", Mode::Closed));
    }

    #[test]
    fn https_urls_take_tls_options() {
        let c = parse(&args("--url https://localhost/x --insecure --load 2 --ca-file /tmp/ca.pem")).unwrap();
        assert_eq!(c.addr.port(), 443);
        assert_eq!(c.path, "/x");
        assert_eq!(
            c.tls,
            Some(TlsOptions {
                server_name: "localhost".into(),
                insecure: true,
                ca_file: Some("/tmp/ca.pem".into()),
            })
        );
        let c = parse(&args("--url https://127.0.0.1:8443 --load 1")).unwrap();
        assert_eq!((c.addr.port(), c.tls.unwrap().server_name.as_str()), (8443, "127.0.0.1"));
        assert!(parse(&args("--url http://127.0.0.1:9 --load 1")).unwrap().tls.is_none());
    }

    #[test]
    fn http_version_flags() {
        let c = parse(&args("--url http://127.0.0.1:9 --load 8 --http2 --connections 2")).unwrap();
        assert_eq!((c.http, c.connections), (Http::H2, Some(2)));
        let c = parse(&args("--url https://localhost --load 8 --http auto")).unwrap();
        assert_eq!((c.http, c.connections), (Http::Auto, None));
        assert_eq!(parse(&args("--url http://127.0.0.1:9 --load 8")).unwrap().http, Http::H1);
        assert!(parse(&args("--url http://127.0.0.1:9 --load 8 --http 3"))
            .unwrap_err()
            .starts_with("--http:"));
        assert!(parse(&args("--url http://127.0.0.1:9 --load 8 --connections 2"))
            .unwrap_err()
            .starts_with("--connections"));
    }

    #[test]
    fn requests_file_is_read_for_every_protocol() {
        let dir = std::env::temp_dir().join(format!("kb-mix-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("requests");
        std::fs::write(&file, b"kneeboard-requests 1\nR 2 GET /a\nR 1 GET /b\n").unwrap();
        let f = file.to_str().unwrap();
        let c = parse(&args(&format!("--url http://127.0.0.1:9 --load 2 --requests-file {f}"))).unwrap();
        assert_eq!(c.mix.iter().map(|e| e.path.as_str()).collect::<Vec<_>>(), ["/a", "/b"]);
        let h2 = parse(&args(&format!("--url http://127.0.0.1:9 --load 2 --http2 --requests-file {f}"))).unwrap();
        assert_eq!((h2.http, h2.mix.len()), (Http::H2, 2));
        assert!(parse(&args("--url http://127.0.0.1:9 --load 2 --requests-file /nonexistent/x"))
            .unwrap_err()
            .starts_with("--requests-file"));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn bad_flags_name_the_flag() {
        assert!(parse(&args("--url ftp://x/ --load 1")).unwrap_err().starts_with("--url"));
        assert!(parse(&args("--url http://127.0.0.1:1/ --load 1 --insecure"))
            .unwrap_err()
            .starts_with("--insecure"));
        assert!(parse(&args("--url http://127.0.0.1:1/")).unwrap_err().starts_with("--load"));
        assert!(parse(&args("--url http://127.0.0.1:1/ --load 1.5"))
            .unwrap_err()
            .starts_with("--load"));
        assert!(parse(&args("--url http://127.0.0.1:1/ --load 1 --threads 0"))
            .unwrap_err()
            .starts_with("--threads"));
        assert!(parse(&args("--url http://127.0.0.1:1/ --load 1 --nope 1"))
            .unwrap_err()
            .starts_with("--nope"));
    }
}
