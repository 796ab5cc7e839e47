//! What std does not offer: a wake-up timer finer than epoll's milliseconds (timerfd), the
//! process's CPU time (getrusage), stdout as a plain descriptor with a large kernel buffer, and a
//! worker thread's real-time priority one above the CLI's.

use mio::unix::SourceFd;
use mio::{Interest, Registry, Token};
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::time::Duration;

/// A CLOCK_MONOTONIC timerfd: epoll_wait's timeout is whole milliseconds, which would add up to
/// 1 ms to every open-loop latency (measured from the intended send time) and to think times.
pub struct Timer {
    fd: OwnedFd,
    armed: Option<u64>,
}

impl Timer {
    pub fn new(registry: &Registry, token: Token) -> io::Result<Timer> {
        // SAFETY: plain syscall with constant flags; the result is checked before use.
        let raw = unsafe { libc::timerfd_create(libc::CLOCK_MONOTONIC, libc::TFD_NONBLOCK | libc::TFD_CLOEXEC) };
        if raw < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: `raw` is a fresh descriptor that nothing else owns.
        let fd = unsafe { OwnedFd::from_raw_fd(raw) };
        registry.register(&mut SourceFd(&fd.as_raw_fd()), token, Interest::READABLE)?;
        Ok(Timer { fd, armed: None })
    }

    /// Wakes the poll `after` from now; `key` (the target time) avoids re-arming for the same time.
    pub fn arm(&mut self, key: u64, after: Duration) {
        if self.armed == Some(key) {
            return;
        }
        self.armed = Some(key);
        // A zero it_value would disarm the timer: at least 1 ns.
        let after = after.max(Duration::from_nanos(1));
        let spec = libc::itimerspec {
            it_interval: libc::timespec { tv_sec: 0, tv_nsec: 0 },
            it_value: libc::timespec {
                tv_sec: after.as_secs() as libc::time_t,
                tv_nsec: after.subsec_nanos() as libc::c_long,
            },
        };
        // SAFETY: the fd is ours and open; `spec` lives across the call; a null old-value pointer is allowed.
        unsafe { libc::timerfd_settime(self.fd.as_raw_fd(), 0, &spec, std::ptr::null_mut()) };
    }

    /// After it fired: drain its counter so the next expiry signals again.
    pub fn clear(&mut self) {
        self.armed = None;
        let mut buf = [0u8; 8];
        // SAFETY: reads at most 8 bytes into a local buffer of 8; the fd is non-blocking.
        unsafe { libc::read(self.fd.as_raw_fd(), buf.as_mut_ptr().cast(), buf.len()) };
    }
}

/// User + system CPU time of the whole process (all threads), seconds.
pub fn process_cpu_s() -> f64 {
    // SAFETY: getrusage fills the zeroed struct we pass; RUSAGE_SELF always exists.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut ru) };
    let tv = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    tv(ru.ru_utime) + tv(ru.ru_stime)
}

/// Asks for a kernel buffer of `bytes` on an output descriptor: a pipe's capacity (F_SETPIPE_SZ;
/// an unprivileged process gets at most /proc/sys/fs/pipe-max-size, 1 MiB by default, so smaller
/// sizes are tried down to the 64 KiB default) or a socket's send buffer (SO_SNDBUF, capped by the
/// kernel). Anything refused leaves the buffer as it was: only wake-ups depend on it, not the data.
pub fn enlarge_output_buffer(fd: libc::c_int, bytes: usize) {
    // SAFETY: fstat fills the zeroed struct we pass; a bad descriptor only returns an error.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    if unsafe { libc::fstat(fd, &mut st) } != 0 {
        return;
    }
    match st.st_mode & libc::S_IFMT {
        libc::S_IFIFO => {
            let mut size = bytes;
            // SAFETY: F_SETPIPE_SZ takes an int and changes nothing on failure.
            while size > 64 * 1024 && unsafe { libc::fcntl(fd, libc::F_SETPIPE_SZ, size as libc::c_int) } < 0 {
                size /= 2;
            }
        }
        libc::S_IFSOCK => {
            let v = bytes as libc::c_int;
            // SAFETY: the option value is a live c_int of the size passed.
            unsafe {
                libc::setsockopt(
                    fd,
                    libc::SOL_SOCKET,
                    libc::SO_SNDBUF,
                    (&v as *const libc::c_int).cast(),
                    std::mem::size_of::<libc::c_int>() as libc::socklen_t,
                )
            };
        }
        _ => {}
    }
}

/// fd 1 as a Write without std's line buffering and lock; never closed here.
pub struct RawStdout;

impl io::Write for RawStdout {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        // SAFETY: writes at most buf.len() bytes from a live slice to fd 1.
        let n = unsafe { libc::write(1, buf.as_ptr().cast(), buf.len()) };
        if n < 0 {
            Err(io::Error::last_os_error())
        } else {
            Ok(n as usize)
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// The real-time priority a worker thread takes when the engine was started at real-time priority
/// (`chrt -r 10 kneeboard sweep …`, inherited from the CLI): one above it, so a worker woken by its
/// timer or a socket preempts the CLI's turn and the engine's own writer instead of waiting for its
/// end (under SCHED_RR/FIFO a woken thread never preempts one of equal priority; the CLI shares the
/// core and its turn over a frame or an upload lasts 0.05–3 ms). `None`: not a real-time policy
/// (the kernel's fair scheduler already lets a woken thread in first), or already the highest.
pub fn raised_rt_priority(policy: libc::c_int, priority: libc::c_int, max: libc::c_int) -> Option<libc::c_int> {
    ((policy == libc::SCHED_RR || policy == libc::SCHED_FIFO) && priority < max).then_some(priority + 1)
}

/// The calling thread's scheduling policy and priority.
fn this_thread_sched() -> Option<(libc::c_int, libc::sched_param)> {
    // SAFETY: pthread_self is always valid for the calling thread; the param struct is plain data
    // filled by pthread_getschedparam before it is read.
    unsafe {
        let mut policy: libc::c_int = 0;
        let mut param: libc::sched_param = std::mem::zeroed();
        (libc::pthread_getschedparam(libc::pthread_self(), &mut policy, &mut param) == 0).then_some((policy, param))
    }
}

/// Sets the calling thread's priority within `policy`; false when the kernel refused.
fn set_this_thread_priority(policy: libc::c_int, mut param: libc::sched_param, priority: libc::c_int) -> bool {
    param.sched_priority = priority;
    // SAFETY: pthread_self is valid; `param` lives across the call.
    unsafe { libc::pthread_setschedparam(libc::pthread_self(), policy, &param) == 0 }
}

/// A worker thread raised one real-time priority above the CLI (`raised_rt_priority`), which gives
/// it back with `lower` when its own turns come near filling its core (`engine_bound`).
pub struct RtRaise {
    policy: libc::c_int,
    param: libc::sched_param,
    base: libc::c_int,
}

impl RtRaise {
    /// Raises the calling thread; `None` when there was nothing to raise or the kernel refused (no
    /// CAP_SYS_NICE and RLIMIT_RTPRIO at the inherited priority): the thread then runs as before.
    pub fn this_thread() -> Option<RtRaise> {
        let (policy, param) = this_thread_sched()?;
        // SAFETY: a plain query with the policy the kernel just gave us.
        let max = unsafe { libc::sched_get_priority_max(policy) };
        let raised = raised_rt_priority(policy, param.sched_priority, max)?;
        set_this_thread_priority(policy, param, raised).then_some(RtRaise {
            policy,
            param,
            base: param.sched_priority,
        })
    }

    /// Back to the inherited priority (call on the raised thread).
    pub fn lower(self) {
        set_this_thread_priority(self.policy, self.param, self.base);
    }
}

/// How long the worker's busy share is measured over before it decides to keep its raise (ns).
pub const RT_CHECK_NS: u64 = 50_000_000;

/// Whether a worker whose turns took `busy_ns` of the last `elapsed_ns` is near its limit (more
/// than three quarters busy). Then the CLI's turns, cut into pieces by every preemption (each
/// costing it a context switch and a cold cache), come out of the worker's own time: HTTP/1.1 at
/// c = 256 through the CLI lost ~4 % of its rate with the raise held at 80–100 % busy, while an
/// HTTP/2 worker waiting on nginx is ~50 % busy. Past the limit there is worse: real-time threads
/// of a higher priority never share the core, so the CLI would get no time at all until the step
/// ends (the live view, `stop`, the uploads).
pub fn engine_bound(busy_ns: u64, elapsed_ns: u64) -> bool {
    busy_ns.saturating_mul(4) > elapsed_ns.saturating_mul(3)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_real_time_priority_is_raised_by_one_below_the_maximum_only() {
        assert_eq!(raised_rt_priority(libc::SCHED_RR, 10, 99), Some(11));
        assert_eq!(raised_rt_priority(libc::SCHED_FIFO, 1, 99), Some(2));
        assert_eq!(raised_rt_priority(libc::SCHED_RR, 99, 99), None);
        assert_eq!(raised_rt_priority(libc::SCHED_OTHER, 0, 0), None);
    }

    #[test]
    fn a_worker_is_engine_bound_above_three_quarters_of_its_time_busy() {
        assert!(engine_bound(50_000_000, 50_000_000));
        assert!(engine_bound(38_000_000, 50_000_000));
        assert!(!engine_bound(37_500_000, 50_000_000));
        assert!(!engine_bound(25_000_000, 50_000_000));
        assert!(!engine_bound(0, 0));
    }

    fn this_thread() -> (libc::c_int, libc::c_int) {
        // SAFETY: as in this_thread_sched.
        unsafe {
            let mut policy: libc::c_int = 0;
            let mut param: libc::sched_param = std::mem::zeroed();
            assert_eq!(libc::pthread_getschedparam(libc::pthread_self(), &mut policy, &mut param), 0);
            (policy, param.sched_priority)
        }
    }

    #[test]
    fn a_thread_at_normal_priority_is_left_as_it_is() {
        std::thread::spawn(|| {
            // SAFETY: sets only this short-lived thread's policy, to the default one.
            let param = libc::sched_param { sched_priority: 0 };
            assert_eq!(
                unsafe { libc::pthread_setschedparam(libc::pthread_self(), libc::SCHED_OTHER, &param) },
                0
            );
            assert!(RtRaise::this_thread().is_none());
            assert_eq!(this_thread(), (libc::SCHED_OTHER, 0));
        })
        .join()
        .unwrap();
    }

    #[test]
    fn a_real_time_thread_goes_one_above_where_the_kernel_allows_it() {
        std::thread::spawn(|| {
            // SAFETY: sets only this short-lived thread's policy. Without the right to real-time
            // priority (not root, no RLIMIT_RTPRIO) there is nothing to test here.
            let param = libc::sched_param { sched_priority: 10 };
            if unsafe { libc::pthread_setschedparam(libc::pthread_self(), libc::SCHED_RR, &param) } != 0 {
                return;
            }
            let raise = RtRaise::this_thread().expect("raised");
            assert_eq!(this_thread(), (libc::SCHED_RR, 11));
            raise.lower();
            assert_eq!(this_thread(), (libc::SCHED_RR, 10));
        })
        .join()
        .unwrap();
    }
}
