"""WSGI middleware (Flask, Django, any WSGI app)."""
import time

from ._timing import Marks, arrival

ENVIRON_KEY = "kneeboard.server_timing"


class ServerTimingMiddleware:
    """Adds ``Server-Timing: queue;dur=…, compute;dur=…`` to every response.

    Arrival: the proxy's X-Request-Start (a WSGI server's worker queue is invisible to the app
    otherwise), or when this middleware is called. Handler start: ``mark_handler_start(environ)``,
    or else when the app is called. Compute ends at ``start_response``, when the headers are set.
    """

    def __init__(self, app, request_start_header="X-Request-Start"):
        self.app = app
        self.key = "HTTP_" + request_start_header.upper().replace("-", "_")

    def __call__(self, environ, start_response):
        marks = Marks(arrival(environ.get(self.key), time.time(), time.perf_counter()))
        environ[ENVIRON_KEY] = marks

        def timed_start_response(status, headers, exc_info=None):
            return start_response(status, list(headers) + [("Server-Timing", marks.value())], exc_info)

        marks.start()
        return self.app(environ, timed_start_response)


def mark_handler_start(environ):
    """The work for this request starts now; the time before it was queue. The last call wins."""
    marks = environ.get(ENVIRON_KEY)
    if marks is not None:
        marks.start()
