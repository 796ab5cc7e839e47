"""Runs ClickHouse's own server from libchdb.so: `python3 serve.py LIBCHDB CLICKHOUSE_ARGS...`.

libchdb.so exports chdb_query_cmdline(argc, argv), the clickhouse-local entry point. Given
--listen_host and ports, a query that starts the HTTP and TCP listeners and then sleeps keeps a
real server up for as long as that query runs. ctypes needs no compiler, so this works wherever
Python and the chdb npm package are.

The server dies with its parent: a watcher thread exits the process when the parent (the Node
test or CLI that started it) is gone, so a crashed test run leaves no server behind.
"""
import ctypes
import os
import sys
import threading
import time


def exit_when_orphaned(parent: int) -> None:
    while True:
        if os.getppid() != parent:
            os._exit(0)
        time.sleep(0.5)


def main() -> int:
    threading.Thread(target=exit_when_orphaned, args=(os.getppid(),), daemon=True).start()
    lib = ctypes.CDLL(sys.argv[1])
    args = [b"clickhouse"] + [a.encode() for a in sys.argv[2:]]
    argv = (ctypes.c_char_p * len(args))(*args)
    lib.chdb_query_cmdline.restype = ctypes.c_void_p
    lib.chdb_query_cmdline(len(args), argv)
    return 0


if __name__ == "__main__":
    sys.exit(main())
