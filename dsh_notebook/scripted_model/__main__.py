"""Command line: ``python -m dsh_notebook.scripted_model [--port N] [--exit-on-stdin-eof] [--verbose]``.

Prints the base URL as its first stdout line and serves until SIGTERM/SIGINT (or stdin EOF with
``--exit-on-stdin-eof``), then exits 0.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import sys
import threading
from collections.abc import Sequence
from types import FrameType

from .server import ScriptedModelServer

__all__ = ["main"]


def main(argv: Sequence[str] | None = None) -> int:
    """Run the server from the command line; returns the exit status."""
    parser = argparse.ArgumentParser(
        prog="python -m dsh_notebook.scripted_model",
        description="Scripted Anthropic-Messages SSE model endpoint on 127.0.0.1.",
    )
    parser.add_argument("--port", type=int, default=0, help="TCP port (default: a free port)")
    parser.add_argument(
        "--exit-on-stdin-eof",
        action="store_true",
        help="also exit when stdin reaches EOF (so a parent that dies takes the server down)",
    )
    parser.add_argument("--verbose", action="store_true", help="log requests to stderr")
    args = parser.parse_args(argv)

    done = threading.Event()

    def on_signal(signum: int, frame: FrameType | None) -> None:
        done.set()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)

    server = ScriptedModelServer(port=args.port, verbose=args.verbose).start()
    try:
        sys.stdout.write(server.base_url + "\n")
        sys.stdout.flush()
        if args.exit_on_stdin_eof:

            def watch_stdin() -> None:
                with contextlib.suppress(OSError, ValueError):
                    while os.read(sys.stdin.fileno(), 65536):
                        pass
                done.set()

            threading.Thread(target=watch_stdin, name="stdin-eof-watch", daemon=True).start()
        while not done.wait(0.2):
            pass
    finally:
        server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
