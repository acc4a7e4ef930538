"""Record the real runtime's file tools (write, edit, read, glob, grep) as tool cards see them.

Runs the published runtime (``deepseek-harness-runtime-bin``) against the scripted model on
127.0.0.1 in a fresh workspace; the model calls each tool once. Every ``tool/call`` and
``tool/result`` event of the run is written, as the runtime sent it (the workspace path replaced
by ``<workspace>``), one JSON object per line, to ``tests/captures/runtime_tools.jsonl``. The
card tests (pytest and vitest) read that file. Nothing leaves the machine.

    PYTHONPATH=. python scripts/capture_runtime_tools.py
"""

from __future__ import annotations

import asyncio
import json
import sys
import tempfile
from pathlib import Path

from dsh_notebook.scripted_model import Script, ScriptedModelServer, Step, ToolCall
from dsh_notebook.testing.harnesses import real_harness

REPORT = (
    '"""Total amount per product in orders.csv."""\n\nimport csv\nfrom collections import '
    "defaultdict\n\ntotals = defaultdict(float)\nwith open('orders.csv', newline='') as handle:\n"
    "    for row in csv.DictReader(handle):\n        totals[row['product']] += float(row['amount'])"
    "\n\nfor label, total in sorted(totals.items(), key=lambda item: -item[1]):\n"
    "    print(f'{label}: {total:,.0f}')\n"
)
CALLS = (
    ToolCall("write", {"file_path": "report.py", "content": REPORT}),
    ToolCall(
        "edit",
        {
            "file_path": "report.py",
            "old_string": "    print(f'{label}: {total:,.0f}')\n",
            "new_string": "    print(f'{label:>10}: {total:,.2f}')\n",
        },
    ),
    ToolCall("read", {"file_path": "report.py", "offset": 3, "limit": 6}),
    ToolCall("glob", {"pattern": "*.py"}),
    ToolCall("grep", {"pattern": "totals", "include": "*.py"}),
)
OUT = Path(__file__).resolve().parent.parent / "tests" / "captures" / "runtime_tools.jsonl"


async def capture(tmp: Path) -> list[dict[str, object]]:
    steps = [Step(text=f"Calling {c.name}.", tool_calls=(c,)) for c in CALLS]
    steps.append(Step(text="Done."))
    with ScriptedModelServer(scripts={"tools": Script(steps=tuple(steps))}) as server:
        harness = real_harness(tmp, server)
        async with harness:
            result = await harness.start_session("tools").run(
                "[[scenario:tools]] write, edit, read, glob, grep"
            )
        workspace = str(harness.config.cwd)
    events = []
    for event in result.events:
        if event.type in ("tool/call", "tool/result"):
            line = json.dumps({"type": event.type, "data": event.data}, ensure_ascii=False)
            events.append(json.loads(line.replace(workspace, "<workspace>")))
    return events


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        events = asyncio.run(capture(Path(tmp)))
    OUT.write_text("".join(json.dumps(e, ensure_ascii=False) + "\n" for e in events))
    print(f"{len(events)} events -> {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
