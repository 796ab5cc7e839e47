"""The Kneeboard HTTP contract, as far as a Locust run needs it (standard library only)."""

import json
import time
import urllib.error
import urllib.request

# Retried: the API is busy or restarting. A 400 is final: the same body would fail again.
_RETRIABLE = {429, 502, 503, 504}


class ApiError(Exception):
    pass


class KneeboardApi:
    def __init__(self, base_url, token=None, timeout_s=15.0, give_up_after_s=60.0):
        self.base_url = base_url.rstrip("/")
        self.token = token
        self.timeout_s = timeout_s
        self.give_up_after_s = give_up_after_s

    def create_run(self, body):
        return self._post("/api/v1/runs", body)["id"]

    def post_step(self, run_id, level, started_at, measure_from, ended_at):
        window = {"level": level, "started_at": started_at, "measure_from": measure_from, "ended_at": ended_at}
        self._post(f"/api/v1/runs/{run_id}/steps", window)

    def post_events(self, run_id, batch):
        return self._post(f"/api/v1/runs/{run_id}/events", batch)

    def finish(self, run_id, status="finished"):
        self._post(f"/api/v1/runs/{run_id}/finish", {"status": status})

    def _post(self, path, body):
        data = json.dumps(body, allow_nan=False).encode()
        headers = {"content-type": "application/json"}
        if self.token:
            headers["authorization"] = f"Bearer {self.token}"
        started = time.monotonic()
        delay = 0.2
        while True:
            request = urllib.request.Request(self.base_url + path, data=data, headers=headers, method="POST")
            try:
                with urllib.request.urlopen(request, timeout=self.timeout_s) as res:
                    text = res.read()
                    return json.loads(text) if text else None
            except urllib.error.HTTPError as err:
                if err.code not in _RETRIABLE:
                    raise ApiError(f"POST {path}: {err.code} {err.read()[:500]!r}") from err
                failure = err
            except (urllib.error.URLError, OSError) as err:
                failure = err
            if time.monotonic() - started + delay > self.give_up_after_s:
                raise ApiError(f"POST {path}: {failure}") from failure
            time.sleep(delay)  # gevent-patched under Locust: other greenlets run meanwhile
            delay = min(delay * 2, 5.0)
