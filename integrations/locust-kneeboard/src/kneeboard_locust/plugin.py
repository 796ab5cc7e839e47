"""
The Locust side: listeners that stream every request of a Locust run to Kneeboard.

Who does what:
- the master (or a standalone Locust) owns the run: it creates it when the test starts, watches the
  total user count (``runner.user_count``, the sum of every worker's users), and on each change
  closes the old level's step window and opens the new one; at the end it posts each level's final
  window and finishes the run;
- whoever runs users (a worker, or the standalone process) records each request with the level in
  effect when it completed and posts JSON event batches to the API itself, every half second —
  no event goes through the master;
- the master tells workers the run and the level with a custom message (``kneeboard``), sent on
  every change and once a second; requests a worker completes before its first message wait for it.

A step's final window spans every request recorded at its level (each node keeps a level's first
send and last completion, and workers add theirs to the reports Locust already sends the master),
so the counts the API shows are exactly the requests Locust counted.
"""

import logging
import os
import socket
import time

import gevent
from gevent.lock import Semaphore
from locust import events
from locust.runners import MasterRunner, WorkerRunner

from .api import ApiError, KneeboardApi
from .events import EventColumns, merge_extents
from .server_timing import parse_server_timing, within_latency

MESSAGE = "kneeboard"
REPORT_KEY = "kneeboard_extents"
FLUSH_S = 0.5
WATCH_S = 0.1
BATCH_EVENTS = 20_000


def now_ms():
    return time.time() * 1000.0


@events.init_command_line_parser.add_listener
def _add_options(parser):
    parser.add_argument("--kneeboard-api", env_var="KNEEBOARD_API", default="", help="Kneeboard API base URL; unset: the plugin does nothing")
    parser.add_argument("--kneeboard-service", env_var="KNEEBOARD_SERVICE", default="", help="service under test")
    parser.add_argument("--kneeboard-release", env_var="KNEEBOARD_RELEASE", default="", help="release or build measured")
    parser.add_argument("--kneeboard-name", env_var="KNEEBOARD_NAME", default="", help="a name for the run")
    parser.add_argument("--kneeboard-token", env_var="KNEEBOARD_TOKEN", default="", help="API token (ingest scope)", is_secret=True)
    parser.add_argument("--kneeboard-warmup", env_var="KNEEBOARD_WARMUP", type=float, default=0.0, help="seconds not measured at the start of each step")


@events.init.add_listener
def _on_init(environment, **_kwargs):
    # A worker needs no options: it waits for its master's word, and records nothing without one.
    options = environment.parsed_options
    if isinstance(environment.runner, WorkerRunner) or (options is not None and getattr(options, "kneeboard_api", "")):
        environment.kneeboard = KneeboardPlugin(environment)


class KneeboardPlugin:
    def __init__(self, environment):
        self.env = environment
        runner = environment.runner
        self.role = "master" if isinstance(runner, MasterRunner) else "worker" if isinstance(runner, WorkerRunner) else "local"
        self.columns = EventColumns()
        self.api = None
        self.run_id = None
        self.level = None
        self.sent = 0
        self.failed = None
        # The run owner's view of the levels: when each began and was left, and every node's extents.
        self.began = {}
        self.left = {}
        self.worker_extents = {}
        self.greenlets = []
        self.flusher = None
        # A batch being posted must not be cut off by the end: the last flush waits for it.
        self.flush_lock = Semaphore()
        ev = environment.events
        if self.role in ("local", "worker"):
            ev.request.add_listener(self.on_request)
            self.flusher = gevent.spawn(self._flush_loop)
        if self.role == "worker":
            runner.register_message(MESSAGE, self.on_message)
            ev.report_to_master.add_listener(self.on_report_to_master)
        if self.role == "master":
            ev.worker_report.add_listener(self.on_worker_report)
        if self.role in ("local", "master"):
            ev.test_start.add_listener(self.on_test_start)
        ev.quitting.add_listener(self.on_quitting)

    # ---- the run owner (master or standalone) ------------------------------------------------

    def on_test_start(self, environment, **_kwargs):
        if self.run_id is not None:
            return
        o = environment.parsed_options
        self.api = KneeboardApi(o.kneeboard_api, o.kneeboard_token or None)
        body = {
            "service": o.kneeboard_service or "locust",
            "release": o.kneeboard_release or "unknown",
            "load_model": "closed",
            "parameter": "users",
            "tags": {"tool": "locust"},
            "agent_host": socket.gethostname()[:255],
        }
        if o.kneeboard_name:
            body["name"] = o.kneeboard_name
        self.run_id = self.api.create_run(body)
        # Before any spawn message (ZeroMQ keeps the order): workers record from their first request.
        self._broadcast()
        self.greenlets.append(gevent.spawn(self._watch_users))

    def _broadcast(self):
        if self.role == "master":
            o = self.env.parsed_options
            self.env.runner.send_message(MESSAGE, {"run_id": self.run_id, "api": o.kneeboard_api, "token": o.kneeboard_token, "level": self.level})

    def _watch_users(self):
        last_broadcast = 0.0
        while True:
            users = self.env.runner.user_count
            if users > 0 and users != self.level:
                self._level_changed(users)
                last_broadcast = 0.0
            if self.level is not None and time.monotonic() - last_broadcast >= 1.0:
                self._broadcast()
                last_broadcast = time.monotonic()
            gevent.sleep(WATCH_S)

    def _level_changed(self, level):
        at = now_ms()
        previous = self.level
        if previous is not None:
            self.left[previous] = at
        self.began.setdefault(level, at)
        self.left.pop(level, None)
        # The new level's window is stored before any request is recorded at it: the API refuses
        # events at a level the run has no step for, and the flusher may send while this posts.
        self._post_window(level, open_=True)
        self.level = level
        if previous is None:
            # Requests of the first users that completed while its window was being posted.
            self.columns.assign_unknown(level)
        else:
            self._post_window(previous, open_=False)

    def _post_window(self, level, open_):
        started = self.began.get(level)
        ext = self._extents().get(level)
        if ext is not None:
            started = min(started, ext[0]) if started is not None else ext[0]
        measure_from = started + self.env.parsed_options.kneeboard_warmup * 1000.0
        ended = None
        if not open_:
            ended = max(x for x in (self.left.get(level), ext[1] if ext else None, measure_from) if x is not None)
        try:
            self.api.post_step(self.run_id, level, started, measure_from, ended)
        except ApiError as err:
            self.failed = self.failed or str(err)

    def on_worker_report(self, client_id, data, **_kwargs):
        # Each report holds the worker's extents so far: the latest one replaces the one before.
        if REPORT_KEY in data:
            self.worker_extents[client_id] = data[REPORT_KEY]

    def _extents(self):
        """Per level, the first send and last completion over every node's requests."""
        merged = {}
        merge_extents(merged, {str(k): v for k, v in self.columns.extents.items()})
        for reported in self.worker_extents.values():
            merge_extents(merged, reported)
        return merged

    # ---- whoever runs users (worker or standalone) -------------------------------------------

    def on_message(self, environment, msg, **_kwargs):
        data = msg.data
        if self.run_id is None:
            self.api = KneeboardApi(data["api"], data.get("token") or None)
            self.run_id = data["run_id"]
        if data.get("level") is not None and data["level"] != self.level:
            first = self.level is None
            self.level = data["level"]
            if first:
                self.columns.assign_unknown(self.level)

    def on_request(self, request_type, name, response_time, response_length, response=None, exception=None, start_time=None, **_kwargs):
        if self.role == "worker" and self.run_id is None:
            return  # this master streams nowhere
        status = getattr(response, "status_code", None)
        status = status if isinstance(status, int) and 0 <= status <= 999 else 0
        latency = max(float(response_time or 0.0), 0.0)
        ts = start_time * 1000.0 + latency if start_time else now_ms()
        queue, compute = parse_server_timing(server_timing_header(response))
        self.columns.append(self.level, ts, latency, status, within_latency(compute, latency), within_latency(queue, latency), request_name(name))

    def on_report_to_master(self, client_id, data, **_kwargs):
        data[REPORT_KEY] = {str(level): [e[0], e[1], e[2]] for level, e in self.columns.extents.items()}

    def _flush_loop(self):
        while True:
            gevent.sleep(FLUSH_S)
            self.flush()

    def flush(self):
        with self.flush_lock:
            self._flush()

    def _flush(self):
        while self.run_id is not None and self.failed is None:
            cols = self.columns.take(BATCH_EVENTS)
            if cols is None:
                return
            n = len(cols["level"])
            batch = {
                "batch_id": f"locust-{self.run_id}-{os.getpid()}-{socket.gethostname()[:40]}-{self.sent}",
                "agent_id": f"locust-{socket.gethostname()[:60]}-{os.getpid()}",
                **cols,
            }
            try:
                self.api.post_events(self.run_id, batch)
                self.sent += n
            except ApiError as err:
                self.failed = str(err)
                environment_log(self.env, f"kneeboard: events lost, the API refused a batch: {err}")

    # ---- the end -------------------------------------------------------------------------------

    def on_quitting(self, environment, **_kwargs):
        for g in self.greenlets:
            g.kill(block=False)
        if self.flusher is not None:
            with self.flush_lock:
                self.flusher.kill(block=False)
                self._flush()
        if self.role in ("local", "master") and self.run_id is not None:
            for level in sorted(set(self._extents()) | set(self.began)):
                self.left.setdefault(level, now_ms())
                self._post_window(level, open_=False)
            try:
                self.api.finish(self.run_id, "finished" if self.failed is None else "aborted")
            except ApiError as err:
                self.failed = self.failed or str(err)
            base = environment.parsed_options.kneeboard_api.rstrip("/")
            environment_log(environment, f"kneeboard: run {self.run_id} ({base}/api/v1/runs/{self.run_id})")
        if self.failed is not None:
            environment_log(environment, f"kneeboard: {self.failed}")


def server_timing_header(response):
    """The response's Server-Timing value(s): HttpUser's (requests) and FastHttpUser's headers are both case-insensitive."""
    get = getattr(getattr(response, "headers", None), "get", None)
    return get("Server-Timing") if callable(get) else None


def environment_log(_environment, message):
    logging.getLogger("kneeboard_locust").warning(message)


MAX_NAME_LENGTH = 200


def request_name(name):
    """Locust's name as the API takes it (its label rules): at most 200 characters, and none where it holds
    what no label may (control characters, bidirectional overrides, U+FFFD) or shows nothing."""
    if not isinstance(name, str):
        return ""
    # The limit counts UTF-16 code units, as JavaScript's string length does: a character above U+FFFF is two.
    if len(name.encode("utf-16-le")) // 2 > MAX_NAME_LENGTH:
        while len(name.encode("utf-16-le")) // 2 > MAX_NAME_LENGTH - 1:
            name = name[:-1]
        name += "\u2026"
    if any(ord(c) < 0x20 or 0x7F <= ord(c) <= 0x9F or c in REFUSED for c in name) or (name and not name.strip()):
        return ""
    return name


REFUSED = set("\u2028\u2029\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\ufffd")
