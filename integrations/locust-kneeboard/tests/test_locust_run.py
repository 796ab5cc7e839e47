"""
Real Locust runs (headless, a few seconds, two user levels) against a loopback service, streamed
to the real Kneeboard API by the plugin: standalone, and a master with two workers. What the API
stores must be what Locust itself counted, by request and by failure: its --json-file totals, which
Locust writes once its users have stopped (its --csv files are rewritten once a second and not at the
end, so they can miss the last second's requests).
"""

import csv
import json
import os
import subprocess
import sys
import time
import urllib.request
import uuid
from pathlib import Path

from conftest import SERVER_COMPUTE_MS, SERVER_QUEUE_MS

HERE = Path(__file__).resolve().parent
SRC = HERE.parent / "src"
LOCUSTFILE = HERE / "locustfile.py"


def locust(args, stats_prefix=None):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(SRC), os.environ.get("PYTHONPATH", "")]), "LEVEL_S": "3"}
    cmd = [sys.executable, "-m", "locust", "-f", str(LOCUSTFILE), "--loglevel", "WARNING", *args]
    if stats_prefix:
        cmd += ["--json-file", stats_prefix]
    return subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def locust_totals(stats_prefix):
    with open(f"{stats_prefix}.json") as f:
        entries = json.load(f)  # one entry per request name and method
    return sum(e["num_requests"] for e in entries), sum(e["num_failures"] for e in entries)


def get_json(url):
    with urllib.request.urlopen(url, timeout=10) as res:
        return json.loads(res.read())


def stored(api, service, release):
    runs = get_json(f"{api}/api/v1/runs?service={service}&release={release}")["runs"]
    assert len(runs) == 1, runs
    run = runs[0]
    with urllib.request.urlopen(f"{api}/api/v1/runs/{run['id']}/curve.csv", timeout=10) as res:
        rows = list(csv.DictReader(res.read().decode().splitlines()))
    return run, [(float(r["level"]), int(r["requests"]), int(r["errors"])) for r in rows], rows


def check(api, release, stats_prefix, output):
    requests, failures = locust_totals(stats_prefix)
    assert requests > 10, output
    run, curve, rows = stored(api, "locust-test", release)
    assert run["status"] == "finished"
    assert run["parameter"] == "users"
    # Locust's request name (the locustfile's name="home") is every request's name.
    detail = get_json(f"{api}/api/v1/runs/{run['id']}")
    assert detail.get("names") == [{"name": "home", "requests": requests}], detail.get("names")
    levels = [level for level, _, _ in curve]
    # Users start one by one (and workers report apart), so a count on the way (1, 3) may be a
    # short step of its own. On a swamped machine workers may not reach 4 before the shape ends;
    # the first level held, 2, is always there, and no level is one Locust never ran.
    assert 2.0 in levels and set(levels) <= {1.0, 2.0, 3.0, 4.0}, curve
    assert sum(n for _, n, _ in curve) == requests, (curve, requests)
    assert sum(e for _, _, e in curve) == failures, (curve, failures)
    # Every response said `queue;dur=1.25` and `compute;dur=3.5` (Server-Timing): each level's
    # percentiles of them are exactly those, so every request carried its own.
    for r in rows:
        for column, expected in (("queue_p50_ms", SERVER_QUEUE_MS), ("queue_p99_ms", SERVER_QUEUE_MS), ("compute_p50_ms", SERVER_COMPUTE_MS), ("compute_p99_ms", SERVER_COMPUTE_MS)):
            assert r[column] != "" and abs(float(r[column]) - expected) < 1e-6, (column, r)


def test_standalone_locust_run_is_stored_with_locusts_own_counts(api, target, tmp_path):
    release = f"standalone-{uuid.uuid4().hex[:8]}"
    prefix = str(tmp_path / "standalone")
    p = locust(["--headless", "--host", target, "--kneeboard-api", api, "--kneeboard-service", "locust-test", "--kneeboard-release", release], prefix)
    out, _ = p.communicate(timeout=90)
    assert p.returncode in (0, 1), out  # 1: Locust saw the service's 500s (failures are expected)
    check(api, release, prefix, out)


def test_master_and_two_workers_are_stored_with_locusts_own_counts(api, target, tmp_path):
    release = f"distributed-{uuid.uuid4().hex[:8]}"
    prefix = str(tmp_path / "distributed")
    port = str(_free_port())
    master = locust(
        ["--master", "--master-bind-host", "127.0.0.1", "--master-bind-port", port, "--expect-workers", "2", "--headless", "--host", target,
         "--kneeboard-api", api, "--kneeboard-service", "locust-test", "--kneeboard-release", release],
        prefix,
    )
    time.sleep(0.5)
    # Workers get no Kneeboard options: the master tells them the run, the API and the level.
    workers = [locust(["--worker", "--master-host", "127.0.0.1", "--master-port", port]) for _ in range(2)]
    try:
        out, _ = master.communicate(timeout=120)
        for w in workers:
            w.communicate(timeout=60)
    finally:
        for proc in (master, *workers):
            if proc.poll() is None:
                proc.kill()
    assert master.returncode in (0, 1), out
    check(api, release, prefix, out)


def _free_port():
    from conftest import free_port

    return free_port()
