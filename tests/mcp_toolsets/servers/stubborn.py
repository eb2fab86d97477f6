"""A process that is hard to stop, for the shutdown tests (no MCP: the transport is what is tested).

    stubborn.py eof        exit when stdin closes (a well-behaved server)
    stubborn.py term       ignore stdin closing, exit on SIGTERM
    stubborn.py kill       ignore stdin closing and SIGTERM: only SIGKILL works
    stubborn.py orphan     start a grandchild that outlives us, then exit when stdin closes
    stubborn.py chatty N   write N numbered lines to stderr, then exit when stdin closes

It prints its pid (and a grandchild's) to stderr first.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import time

mode = sys.argv[1]
print(f"pid {__import__('os').getpid()}", file=sys.stderr, flush=True)
if mode in ("term", "kill"):
    sys.stdin.close()
if mode == "kill":
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
if mode == "orphan":
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)"])
    print(f"grandchild {child.pid}", file=sys.stderr, flush=True)
if mode == "chatty":
    for i in range(int(sys.argv[2])):
        print(f"line {i}", file=sys.stderr)
    sys.stderr.flush()
if mode in ("eof", "orphan", "chatty"):
    sys.stdin.read()
    sys.exit(0)
while True:
    time.sleep(1)
