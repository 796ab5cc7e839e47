"""ASGI middleware (Starlette, FastAPI, Django's ASGI, any ASGI 3 app)."""
import time

from ._timing import Marks, arrival

SCOPE_KEY = "kneeboard.server_timing"


class ServerTimingMiddleware:
    """Adds ``Server-Timing: queue;dur=…, compute;dur=…`` to every HTTP response.

    Arrival: the proxy's X-Request-Start, or when this middleware is called. Handler start: when the
    app calls ``mark_handler_start(scope)`` (after its own limiter or pool wait), or else when this
    middleware calls the app. Compute ends at ``http.response.start``, when the headers leave.
    """

    def __init__(self, app, request_start_header="x-request-start"):
        self.app = app
        self.header = request_start_header.lower().encode("latin-1")

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        stamp = next((v.decode("latin-1") for k, v in scope.get("headers", []) if k.lower() == self.header), None)
        marks = Marks(arrival(stamp, time.time(), time.perf_counter()))
        scope[SCOPE_KEY] = marks

        async def timed_send(message):
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                headers.append((b"server-timing", marks.value().encode("latin-1")))
                message = {**message, "headers": headers}
            await send(message)

        marks.start()
        await self.app(scope, receive, timed_send)


def mark_handler_start(scope):
    """The work for this request starts now; the time before it was queue. The last call wins."""
    marks = scope.get(SCOPE_KEY)
    if marks is not None:
        marks.start()
