import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[2]
# The tests run against the source tree, installed or not.
sys.path.insert(0, str(HERE.parent / "src"))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="session")
def api():
    """The real Kneeboard API (apps/api) on embedded ClickHouse, as its own process on loopback."""
    port = free_port()
    data = tempfile.mkdtemp(prefix="kb-locust-api-")
    env = {**os.environ, "PORT": str(port), "HOST": "127.0.0.1", "LOG_LEVEL": "warn", "KNEEBOARD_DATA_DIR": data}
    child = subprocess.Popen(["node", "--import", "tsx", str(REPO / "apps/api/src/server.ts")], cwd=REPO / "apps/api", env=env)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 120
    while True:
        try:
            with urllib.request.urlopen(f"{url}/healthz", timeout=2) as res:
                if res.status == 200:
                    break
        except OSError:
            pass
        if child.poll() is not None or time.monotonic() > deadline:
            child.kill()
            raise RuntimeError("the Kneeboard API did not start")
        time.sleep(0.25)
    yield url
    child.terminate()
    child.wait(30)


# What the target reports of itself on every response, in two header lines (as a proxy may add one):
# the plugin must store exactly these as each request's queue and compute time.
SERVER_QUEUE_MS = 1.25
SERVER_COMPUTE_MS = 3.5


class _Target(BaseHTTPRequestHandler):
    """A service with a known error rate (every 10th request is a 500) that sends Server-Timing."""

    count = 0
    lock = threading.Lock()

    def do_GET(self):
        with _Target.lock:
            _Target.count += 1
            n = _Target.count
        time.sleep(0.005)
        code = 500 if n % 10 == 0 else 200
        body = b"ok"
        try:
            self.send_response(code)
            self.send_header("content-length", str(len(body)))
            self.send_header("Server-Timing", f'db;desc="a, b";dur=0.5, queue;dur={SERVER_QUEUE_MS}')
            self.send_header("Server-Timing", f"compute;dur={SERVER_COMPUTE_MS}")
            self.end_headers()
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            pass  # Locust closes its connections when it stops users mid-request

    def log_message(self, *args):
        pass


@pytest.fixture(scope="session")
def target():
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Target)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
