"""The plugin's Server-Timing reader follows the agent SDK's rules (packages/agent-sdk/test/server-timing.test.ts)."""

import math

from kneeboard_locust.server_timing import parse_server_timing, within_latency


def test_reads_queue_and_compute_from_one_or_several_header_values():
    assert parse_server_timing("queue;dur=12.5, compute;dur=48.1") == (12.5, 48.1)
    assert parse_server_timing(["db;dur=3", "Compute;DUR=7", "QUEUE;dur=.5"]) == (0.5, 7.0)
    assert parse_server_timing(None) == (None, None)
    assert parse_server_timing("") == (None, None)


def test_quoted_params_split_nothing_and_params_come_in_any_order():
    assert parse_server_timing('compute;desc="a, b; c";dur=4, queue;desc="\\"x\\"";dur=1e1') == (10.0, 4.0)


def test_the_first_dur_of_an_entry_and_the_first_entry_of_a_name_win():
    assert parse_server_timing("compute;dur=1;dur=2, compute;dur=3") == (None, 1.0)
    # An entry of the name without a dur does not hide a later one with it.
    assert parse_server_timing("compute, compute;dur=5") == (None, 5.0)


def test_malformed_entries_are_skipped_and_the_rest_kept():
    assert parse_server_timing("compute;dur=-1, queue;dur=abc, b@d;dur=1, compute;dur=2") == (None, 2.0)
    assert parse_server_timing('compute;desc="never closed;dur=3') == (None, None)


def test_a_part_longer_than_its_request_is_dropped():
    assert within_latency(10.0, 9.5) == 10.0  # within 1 ms of clock granularity
    assert within_latency(12.0, 9.5) is None
    assert within_latency(1005.0, 1000.0) == 1005.0  # 1 % of a long request
    assert within_latency(None, 5.0) is None
    assert within_latency(math.inf, 5.0) is None
