//! What std does not offer: a wake-up timer finer than epoll's milliseconds (timerfd), the
//! process's CPU time (getrusage), and stdout as a plain descriptor with a large kernel buffer.

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
