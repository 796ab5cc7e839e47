"""
Reads ``queue`` and ``compute`` from a response's W3C Server-Timing header, by the rules of the
agent SDK's parser (packages/agent-sdk/src/server-timing.ts), which a Kneeboard sweep uses: several
comma-separated entries and header lines, params in any order and case, quoted values (a comma or
semicolon inside ``desc="a, b"`` splits nothing), only an entry's first ``dur`` used, the first
entry of a name with a ``dur`` wins. Anything malformed is skipped: one odd server never stops a run.
"""

import re

# RFC 9110 token: what a metric name may be.
_TOKEN = re.compile(r"^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$")
# A non-negative decimal: the columns are durations, so a negative ``dur`` is malformed.
_DURATION = re.compile(r"^(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$")

# The API takes a part of a request's time up to its latency plus clock granularity: 1 ms, or 1 %
# when that is more (packages/event-wire/src/rules.ts); a batch holding more is refused whole.
_TOLERANCE_MS = 1.0
_TOLERANCE_RATIO = 0.01


def parse_server_timing(header):
    """``(queue_ms, compute_ms)`` from a header value (or a list of them); None for what is not there."""
    found = {"queue": None, "compute": None}
    if not header:
        return None, None
    for value in [header] if isinstance(header, str) else header:
        entries, _unterminated = _split_outside_quotes(value, ",")
        for entry in entries:
            metric = _read_entry(entry)
            if metric is None:
                continue
            name, dur = metric
            if name in found and found[name] is None and dur is not None:
                found[name] = dur
    return found["queue"], found["compute"]


def within_latency(part_ms, latency_ms):
    """The part, or None when it cannot be a part of a request that took ``latency_ms``."""
    if part_ms is None:
        return None
    return part_ms if part_ms <= latency_ms + max(_TOLERANCE_MS, latency_ms * _TOLERANCE_RATIO) else None


def _read_entry(entry):
    if entry.strip() == "":
        return None
    parts, _ = _split_outside_quotes(entry, ";")
    name = parts[0].strip().lower() if parts else ""
    if not _TOKEN.match(name):
        return None
    for param in parts[1:]:
        key, eq, raw = param.partition("=")
        if key.strip().lower() != "dur":
            continue
        raw = _unquote(raw.strip()) if eq else ""
        return (name, float(raw)) if _DURATION.match(raw) else None
    return name, None


def _split_outside_quotes(s, sep):
    """Splits on ``sep`` outside double quotes; a part whose quote never closes is left out."""
    if '"' not in s:
        return s.split(sep), False
    parts, current, quoted, i = [], [], False, 0
    while i < len(s):
        ch = s[i]
        if quoted and ch == "\\" and i + 1 < len(s):
            current.append(s[i : i + 2])
            i += 2
            continue
        if ch == '"':
            quoted = not quoted
            current.append(ch)
        elif ch == sep and not quoted:
            parts.append("".join(current))
            current = []
        else:
            current.append(ch)
        i += 1
    if not quoted:
        parts.append("".join(current))
    return parts, quoted


def _unquote(v):
    if len(v) >= 2 and v.startswith('"') and v.endswith('"'):
        return re.sub(r"\\(.)", r"\1", v[1:-1])
    return v
