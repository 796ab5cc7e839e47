import asyncio
import re
import threading
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from socketserver import ThreadingMixIn
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

from kneeboard_server_timing import (
    ASGIServerTimingMiddleware,
    WSGIServerTimingMiddleware,
    mark_asgi_handler_start,
    mark_wsgi_handler_start,
)

WORK_S = 0.06
ENTRY = re.compile(r"(\w+);dur=([\d.]+)")


def parse(value):
    return {k: float(v) for k, v in ENTRY.findall(value)}


# ---- WSGI: a real threaded server on 127.0.0.1, a one-slot lock inside the app -------------


class _Threaded(ThreadingMixIn, WSGIServer):
    daemon_threads = True


class _Quiet(WSGIRequestHandler):
    def log_message(self, *args):
        pass


def _wsgi_app():
    slot = threading.Lock()
    arrived = []

    def app(environ, start_response):
        if environ["PATH_INFO"] == "/plain":
            start_response("200 OK", [("Content-Type", "text/plain"), ("Server-Timing", "db;dur=1.5")])
            return [b"plain"]
        arrived.append(1)
        with slot:
            mark_wsgi_handler_start(environ)
            # The first in works only once the other is waiting: on a busy box the two requests
            # may arrive far apart, and the test is about the wait, not the arrival.
            deadline = time.time() + 5
            while len(arrived) < 2 and time.time() < deadline:
                time.sleep(0.001)
            time.sleep(WORK_S)
            start_response("200 OK", [("Content-Type", "text/plain")])
            return [b"ok"]

    return WSGIServerTimingMiddleware(app)


def _get(url, headers=None):
    req = urllib.request.Request(url, headers=headers or {})
    with urllib.request.urlopen(req, timeout=10) as res:
        res.read()
        return res.headers.get_all("Server-Timing")


def test_wsgi_splits_queue_from_compute_on_a_real_server():
    server = make_server("127.0.0.1", 0, _wsgi_app(), server_class=_Threaded, handler_class=_Quiet)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = "http://127.0.0.1:%d" % server.server_port
    try:
        with ThreadPoolExecutor(2) as pool:
            results = [parse(", ".join(h)) for h in pool.map(lambda _: _get(base + "/"), range(2))]
        for t in results:
            assert t["compute"] >= WORK_S * 1000 - 1
        first, second = sorted(results, key=lambda t: t["queue"])
        assert first["queue"] < second["queue"]
        assert second["queue"] >= WORK_S * 1000 - 1

        # A proxy's stamp 250 ms ago is queue; the app's own entry is kept.
        stamped = _get(base + "/plain", {"X-Request-Start": "t=%.3f" % (time.time() - 0.25)})
        joined = ", ".join(stamped)
        assert "db;dur=1.5" in joined
        assert 240 <= parse(joined)["queue"] < 5000
        skewed = parse(", ".join(_get(base + "/plain", {"X-Request-Start": "t=%.3f" % (time.time() + 60)})))
        assert skewed["queue"] < 240
    finally:
        server.shutdown()


# ---- ASGI: the app called as an ASGI server calls it, two requests at once ----------------


def _asgi_app():
    slot = asyncio.Lock()
    arrived = []

    async def app(scope, receive, send):
        arrived.append(1)
        async with slot:
            mark_asgi_handler_start(scope)
            for _ in range(5000):
                if len(arrived) >= 2:
                    break
                await asyncio.sleep(0.001)
            await asyncio.sleep(WORK_S)
            await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/plain")]})
            await send({"type": "http.response.body", "body": b"ok"})

    return ASGIServerTimingMiddleware(app)


async def _call(app, headers=()):
    sent = []

    async def receive():
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message):
        sent.append(message)

    scope = {"type": "http", "method": "GET", "path": "/", "headers": list(headers)}
    await app(scope, receive, send)
    start = next(m for m in sent if m["type"] == "http.response.start")
    return parse(", ".join(v.decode() for k, v in start["headers"] if k == b"server-timing"))


def test_asgi_splits_queue_from_compute():
    async def main():
        app = _asgi_app()
        results = await asyncio.gather(_call(app), _call(app))
        stamped = await _call(app, [(b"x-request-start", ("t=%.3f" % (time.time() - 0.25)).encode())])
        return results, stamped

    results, stamped = asyncio.run(main())
    for t in results:
        assert t["compute"] >= WORK_S * 1000 - 1
    first, second = sorted(results, key=lambda t: t["queue"])
    assert first["queue"] < second["queue"]
    assert second["queue"] >= WORK_S * 1000 - 1
    assert 240 <= stamped["queue"] < 5000


def test_asgi_passes_other_scopes_through():
    seen = []

    async def app(scope, receive, send):
        seen.append(scope["type"])

    asyncio.run(ASGIServerTimingMiddleware(app)({"type": "lifespan"}, None, None))
    assert seen == ["lifespan"]
