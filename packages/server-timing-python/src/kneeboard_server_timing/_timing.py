"""Where one request's time went on the server: queue (arrival to the work's start) and compute."""
import re
import time

_STAMP = re.compile(r"^\s*(?:t=)?(\d+(?:\.\d+)?)\s*$")


def arrival(request_start, now_wall=None, now_mono=None):
    """The request's arrival on the monotonic clock.

    A proxy in front (nginx ``proxy_set_header X-Request-Start "t=${msec}";``) stamps when *it* got
    the request, so its queue counts too; without one, now. A stamp in the future or over an hour
    old (clock skew) is ignored.
    """
    now_wall = time.time() if now_wall is None else now_wall
    now_mono = time.perf_counter() if now_mono is None else now_mono
    if not request_start:
        return now_mono
    m = _STAMP.match(request_start)
    if not m:
        return now_mono
    v = float(m.group(1))
    # Seconds, milliseconds or microseconds since the epoch, told apart by size.
    stamp = v if v < 1e11 else v / 1e3 if v < 1e14 else v / 1e6
    ago = now_wall - stamp
    return now_mono - ago if 0 <= ago < 3600 else now_mono


def header_value(arrived, handler_started, done):
    """``queue;dur=…, compute;dur=…`` in milliseconds."""
    queue = max(0.0, handler_started - arrived) * 1000
    compute = max(0.0, done - handler_started) * 1000
    return "queue;dur=%.3f, compute;dur=%.3f" % (queue, compute)


class Marks:
    """Per request; the app may move the handler start later with mark_handler_start()."""

    __slots__ = ("arrived", "handler_started")

    def __init__(self, arrived):
        self.arrived = arrived
        self.handler_started = None

    def start(self):
        self.handler_started = time.perf_counter()

    def value(self):
        now = time.perf_counter()
        return header_value(self.arrived, self.handler_started if self.handler_started is not None else now, now)
