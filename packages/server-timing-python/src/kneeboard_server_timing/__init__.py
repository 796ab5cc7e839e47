"""Server-Timing queue/compute middlewares for Python services measured by Kneeboard."""
from .asgi import ServerTimingMiddleware as ASGIServerTimingMiddleware
from .asgi import mark_handler_start as mark_asgi_handler_start
from .wsgi import ServerTimingMiddleware as WSGIServerTimingMiddleware
from .wsgi import mark_handler_start as mark_wsgi_handler_start

__all__ = [
    "ASGIServerTimingMiddleware",
    "WSGIServerTimingMiddleware",
    "mark_asgi_handler_start",
    "mark_wsgi_handler_start",
]
