"""Command line of the fake runtime: launcher flags, ``--scenario``, ``--scenario-arg K=V``,
``$DSH_FAKE_SCENARIO`` / ``$DSH_FAKE_SCENARIO_ARGS``; signals; then serve until EOF or shutdown.
"""

from __future__ import annotations

import argparse
import io
import os
import re
import signal
import sys

from .records import RUNTIME_VERSION
from .scenarios import SCENARIOS, FakeRuntime
from .wire import log


def parse_args(argv: list[str]) -> tuple[str, dict[str, str]]:
    parser = argparse.ArgumentParser(
        prog="fake_runtime",
        allow_abbrev=False,
        description="Fake DeepSeek Harness SDK runtime for tests.",
    )
    parser.add_argument("--scenario", choices=sorted(SCENARIOS))
    parser.add_argument("--scenario-arg", action="append", default=[], metavar="K=V")
    parser.add_argument("--profile")  # launcher flags, accepted and ignored
    parser.add_argument("--patch", action="append", default=[])
    parser.add_argument("--from-default-profile", action="store_true")
    parser.add_argument("--version", action="version", version=RUNTIME_VERSION)
    ns, extra = parser.parse_known_args(argv)
    if extra:
        log(f"ignoring application arguments {extra!r}")
    scenario = ns.scenario or os.environ.get("DSH_FAKE_SCENARIO", "").strip() or "normal"
    pairs = re.split(r"[\s,]+", os.environ.get("DSH_FAKE_SCENARIO_ARGS", "").strip())
    args: dict[str, str] = {}
    for pair in [p for p in pairs if p] + list(ns.scenario_arg):
        key, sep, value = pair.partition("=")
        args[key.strip()] = value if sep else "1"
    return scenario, args


def main(argv: list[str] | None = None) -> int:
    scenario, args = parse_args(sys.argv[1:] if argv is None else argv)
    if scenario not in SCENARIOS:
        log(f"unknown scenario {scenario!r}; known: {', '.join(sorted(SCENARIOS))}")
        return 2
    if isinstance(sys.stdout, io.TextIOWrapper):
        sys.stdout.reconfigure(encoding="utf-8", newline="\n")
    if scenario == "ignore-sigterm":
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    else:
        signal.signal(signal.SIGTERM, lambda _sig, _frame: os._exit(0))
        signal.signal(signal.SIGINT, lambda _sig, _frame: os._exit(0))
    FakeRuntime(scenario, args).serve()
