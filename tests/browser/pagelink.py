"""The kernel's end of the page protocol, driven by a browser test (a protocol-exact stand-in for
the kernel's cell-editing side, so the page's handlers are tested on their own).

:func:`setup_source` is a notebook cell: it loads ``dsh_notebook`` (no prewarm: no runtime),
opens the real ``FrontendLink`` comm to the page and

- taps the comm: every message the page sends (``hello_reply``, ``apply_change_reply``,
  ``run_cells_reply``, ``undo_request``, ``undo_reply``, ...) is appended, one JSON line each, to
  ``replies.jsonl`` in the notebook's folder, then handled by the link as before, except
  ``undo_request``: the test answers it (the kernel's ledger knows nothing of the test's changes);
- starts a daemon thread that sends every ``outbox/*.json`` file the test writes as one comm
  message (IOPub is thread-safe), oldest name first, and deletes it.

:class:`PageLink` is the test's side of those two files. The page's replies are handled on the
kernel's main thread (or the comm's subshell): a reply to a message sent while a cell runs is
recorded once that cell ended.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any


def setup_source() -> str:
    return "\n".join(
        [
            "%config DshMagics.prewarm = False",
            "%load_ext dsh_notebook",
            "import json as _json, os as _os, threading as _threading, time as _time",
            "_link = get_ipython()._dsh_notebook_magics.agent.frontend_link",
            "_link.open()",
            "_comm = _link._comm",
            "def _tap(msg, _orig=_link._on_msg):",
            "    with open('replies.jsonl', 'a') as f:",
            "        f.write(_json.dumps(msg['content']['data']) + '\\n')",
            "    if msg['content']['data'].get('type') != 'undo_request':  # the test answers it",
            "        _orig(msg)",
            "_comm.on_msg(_tap)",
            "_os.makedirs('outbox', exist_ok=True)",
            "def _pump():",
            "    while True:",
            "        for n in sorted(x for x in _os.listdir('outbox') if x.endswith('.json')):",
            "            p = _os.path.join('outbox', n)",
            "            with open(p) as f:",
            "                data = _json.load(f)",
            "            _os.remove(p)",
            "            _comm.send(data)",
            "        _time.sleep(0.05)",
            "_threading.Thread(target=_pump, daemon=True).start()",
            "print('page link ready')",
        ]
    )


class PageLink:
    """Send kernel messages to the page; read what it sent back."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._sent = 0

    def send(self, message: dict[str, Any]) -> float:
        """Queue ``message`` for the kernel's pump; returns ``time.monotonic()`` of the write."""
        outbox = self.root / "outbox"
        outbox.mkdir(exist_ok=True)
        self._sent += 1
        tmp = outbox / f"{self._sent:06d}.tmp"
        tmp.write_text(json.dumps(message))
        tmp.rename(outbox / f"{self._sent:06d}.json")
        return time.monotonic()

    def received(self) -> list[dict[str, Any]]:
        path = self.root / "replies.jsonl"
        if not path.exists():
            return []
        out: list[dict[str, Any]] = []
        for line in path.read_text().splitlines():
            try:
                out.append(json.loads(line))
            except ValueError:  # a line being written
                pass
        return out

    def wait(
        self, match: Callable[[dict[str, Any]], bool], timeout: float = 30, what: str = ""
    ) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            for message in self.received():
                if match(message):
                    return message
            assert time.monotonic() < deadline, f"no {what or 'matching message'} from the page"
            time.sleep(0.05)

    def reply_to(self, request_id: str, kind: str, timeout: float = 30) -> dict[str, Any]:
        return self.wait(
            lambda m: m.get("type") == kind and m.get("request_id") == request_id,
            timeout,
            f"{kind} {request_id}",
        )
