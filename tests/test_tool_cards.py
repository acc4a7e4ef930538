"""Issue 29: the runtime's file tools read in words, from the real runtime's own calls
(``tests/captures/runtime_tools.jsonl``, recorded by ``scripts/capture_runtime_tools.py``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from dsh_notebook.protocol import Notification
from dsh_notebook.transcript import Transcript
from dsh_notebook.transcript.schema import ToolItem
from dsh_notebook.transcript.tool_cards import describe_tool, language_of

CAPTURE = Path(__file__).parent / "captures" / "runtime_tools.jsonl"


def captured() -> Transcript:
    t = Transcript("s")
    for line in CAPTURE.read_text().splitlines():
        e = json.loads(line)
        event = {"type": e["type"], "seq": 0, "time": 0, "data": e["data"]}
        t.apply(Notification("session.event", {"sessionId": "s", "event": event}))
    return t


def tools() -> dict[str, ToolItem]:
    return {i["name"]: i for i in captured().snapshot()["items"] if i["kind"] == "tool"}


def section(md: str, tool: str) -> str:
    start = md.index(f"**Tool** `{tool}`")
    end = md.find("**Tool**", start + 1)
    return md[start : end if end > 0 else len(md)]


def test_the_capture_holds_each_tool_once() -> None:
    assert sorted(tools()) == ["edit", "glob", "grep", "read", "write"]


def test_write_shows_the_file_as_code_in_its_language_and_says_what_it_did() -> None:
    item = tools()["write"]
    view = describe_tool(item)
    assert view is not None and view.language == "python"
    assert view.heading == "write report.py" and view.outcome == "created report.py, 12 lines"
    md = section(captured().to_markdown(), "write")
    assert '```python\n"""Total amount per product in orders.csv."""\n\nimport csv\n' in md
    assert "<path>" not in md and '\\"\\"\\"' not in md  # no wire wrapping, no escaped JSON
    assert "Result: created report.py, 12 lines" in md
    assert '"content":' in item["arguments"] and "<path>" in (item["result"] or "")  # raw kept


def test_edit_shows_a_diff() -> None:
    md = section(captured().to_markdown(), "edit")
    assert (
        "```diff\n-    print(f'{label}: {total:,.0f}')\n+    print(f'{label:>10}: {total:,.2f}')\n```"
        in md
    )
    assert "Result: edited report.py: 1 line replaced by 1 line" in md


def test_read_names_the_path_and_the_range() -> None:
    md = section(captured().to_markdown(), "read")
    assert "— read report.py, lines 3 to 8" in md and "Result: read report.py: 6 lines" in md
    assert "<details><summary>The output (8 lines)</summary>" in md and "<content>" not in md


def test_glob_and_grep_show_the_pattern_and_the_matches() -> None:
    md = captured().to_markdown()
    assert "— glob \\*.py" in section(md, "glob") and "Result: 1 file found" in section(md, "glob")
    grep = section(md, "grep")
    assert "— grep “totals” in \\*.py" in grep and "Result: 3 matches" in grep
    assert "Line 6: totals = defaultdict(float)" in grep and "Found 3 matches" not in grep


@pytest.mark.parametrize(
    ("name", "args"),
    [("web_fetch", {"url": "https://example.com"}), ("write", {"file_path": 3}), ("edit", [])],
)
def test_other_tools_and_unexpected_arguments_keep_the_generic_card(name: str, args: Any) -> None:
    item = dict(tools()["write"], name=name, args=args)
    assert describe_tool(item) is None  # type: ignore[arg-type]


def test_a_failed_call_keeps_the_generic_card() -> None:
    assert describe_tool(dict(tools()["write"], is_error=True)) is None  # type: ignore[arg-type]


def test_languages_by_extension() -> None:
    assert [language_of(p) for p in ("a.PY", "b.ts", "c.unknown", "Makefile")] == [
        "python", "typescript", "text", "text",
    ]  # fmt: skip
