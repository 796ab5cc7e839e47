"""Requests as columns, cut into the API's JSON event batches; and each level's time extent."""

import threading


class EventColumns:
    """Appending is a list append per column: no object per request, as Locust may record thousands a second."""

    def __init__(self):
        self._lock = threading.Lock()
        self._reset()
        # Per level: [first send, last completion, count] of every request recorded here.
        self.extents = {}

    def _reset(self):
        self.level, self.ts_ms, self.latency_ms, self.status = [], [], [], []
        # The server's own times from its Server-Timing header; None where it sent none.
        self.compute_ms, self.queue_ms = [], []
        # Locust's request name (`name=` groups URLs with ids under one); "" for none.
        self.name = []

    def __len__(self):
        return len(self.level)

    def append(self, level, ts_ms, latency_ms, status, compute_ms=None, queue_ms=None, name=""):
        with self._lock:
            self.name.append(name)
            self.level.append(level)
            self.ts_ms.append(ts_ms)
            self.latency_ms.append(latency_ms)
            self.status.append(status)
            self.compute_ms.append(compute_ms)
            self.queue_ms.append(queue_ms)
            if level is not None:
                self._extend(level, ts_ms, latency_ms)

    def assign_unknown(self, level):
        """Requests recorded before the first level was known (a worker starts before the master's word) get it now."""
        with self._lock:
            for i, v in enumerate(self.level):
                if v is None:
                    self.level[i] = level
                    self._extend(level, self.ts_ms[i], self.latency_ms[i])

    def take(self, max_events):
        """Removes and returns up to max_events leveled requests as columns (None when there are none)."""
        with self._lock:
            if not self.level or self.level[0] is None:
                return None
            n = min(max_events, len(self.level))
            cols = {
                "level": self.level[:n],
                "ts_ms": self.ts_ms[:n],
                "latency_ms": self.latency_ms[:n],
                "compute_ms": self.compute_ms[:n],
                "queue_ms": self.queue_ms[:n],
                "status": self.status[:n],
            }
            names = self.name[:n]
            # Only when some request has one: a batch without names is stored as before names existed.
            if any(names):
                cols["name"] = names
            del self.level[:n], self.ts_ms[:n], self.latency_ms[:n], self.compute_ms[:n], self.queue_ms[:n], self.status[:n], self.name[:n]
            return cols

    def _extend(self, level, ts_ms, latency_ms):
        sent = ts_ms - latency_ms
        e = self.extents.get(level)
        if e is None:
            self.extents[level] = [sent, ts_ms, 1]
        else:
            e[0] = min(e[0], sent)
            e[1] = max(e[1], ts_ms)
            e[2] += 1


def merge_extents(into, other):
    """Merges extents reported by another node (JSON keys are strings)."""
    for key, (first, last, count) in other.items():
        level = float(key)
        level = int(level) if level.is_integer() else level
        e = into.get(level)
        if e is None:
            into[level] = [first, last, count]
        else:
            e[0], e[1], e[2] = min(e[0], first), max(e[1], last), e[2] + count
