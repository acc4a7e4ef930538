"""Scripts the analyst writes and runs with the runtime's own tools (``write``, ``bash``).

"Write a script that reads sales.csv and prints the total revenue per region" becomes: read the
file's first lines (``bash head``), write a standard-library-only script (``write``) that sums the
chosen numeric column per the chosen text column and prints ``label: number`` lines, largest
first, run it (``bash python3``), and quote what it printed. "Run analysis.py and tell me which
region sold most" runs the named script and reads its ``label: number`` lines. Every number in the
answer comes from that printed output.
"""

from __future__ import annotations

import csv
import io
import re
import shlex
from typing import Final

from ..scripted_model import Step
from .compose import fmt
from .intents import Intent, question_text
from .names import mentioned
from .turn import Turn

__all__ = ["parse_printed", "script_source", "script_step"]

_LINE: Final = re.compile(r"^\s*(.+?)\s*[:,=\t]\s*(-?[\d,]*\.?\d+)\s*$")

_TEMPLATE: Final = '''"""{doc}"""

import csv
from collections import defaultdict

totals = defaultdict(float)
with open({path!r}, newline="") as handle:
    for row in csv.DictReader(handle):
        totals[row[{group!r}]] += float(row[{value!r}] or 0)

for label, total in sorted(totals.items(), key=lambda item: -item[1]):
    shown = f"{{total:,.0f}}" if total.is_integer() else f"{{total:,.2f}}"
    print(f"{{label}}: {{shown}}")
'''


def script_source(path: str, group: str, value: str) -> str:
    """A standard-library script printing ``label: total`` of ``value`` per ``group``."""
    doc = f"Total {value} per {group} in {path}, largest first (written by the demo analyst)."
    return _TEMPLATE.format(doc=doc, path=path, group=group, value=value)


def parse_printed(text: str) -> list[tuple[str, float]]:
    """``label: number`` (or ``label,number``) lines of a script's output, in order."""
    out: list[tuple[str, float]] = []
    for line in text.splitlines():
        match = _LINE.match(line)
        if match:
            out.append((match.group(1), float(match.group(2).replace(",", ""))))
    return out


def _columns(sample: str) -> tuple[list[str], list[str]]:
    """(text columns, numeric columns) of a CSV sample (header plus a few rows)."""
    rows = list(csv.reader(io.StringIO(sample)))
    if not rows:
        return [], []
    header, body = rows[0], rows[1:]
    numeric: list[str] = []
    text: list[str] = []
    for i, name in enumerate(header):
        cells = [r[i] for r in body if len(r) > i and r[i] != ""]
        try:
            [float(c) for c in cells]
        except ValueError:
            text.append(name)
        else:
            (numeric if cells else text).append(name)
    return text, numeric


def _answer_from_output(turn: Turn, intent: Intent, script: str, output: str) -> Step:
    pairs = parse_printed(output)
    quoted = "\n".join(f"    {line}" for line in output.strip().splitlines()[:20])
    if not pairs:
        return Step(text=f"`{script}` ran and printed:\n\n{quoted}")
    best = max(pairs, key=lambda p: p[1]) if intent.largest else min(pairs, key=lambda p: p[1])
    pick = "largest" if intent.largest else "smallest"
    # the output is the tool result right above: the answer says what it means, not it again
    return Step(
        text=f"`{script}` printed {len(pairs)} values (the `bash` result above). "
        f"The {pick} is **{best[0]}** with {fmt(best[1])}."
    )


def _run_script(turn: Turn, script: str) -> Step:
    return turn.call(
        "bash",
        {"description": f"Run {script}", "command": f"python3 {shlex.quote(script)}"},
        f"Running `{script}`.",
    )


def script_step(turn: Turn, intent: Intent) -> Step:
    """The next step of a script question (see the module docstring)."""
    if not (turn.offers("bash") and (intent.kind == "run_script" or turn.offers("write"))):
        return Step(text="The runtime's `bash`/`write` tools are not offered, so I cannot do that.")
    bash = turn.done("bash")
    script = intent.script or "analysis.py"
    if intent.kind == "run_script":
        if not bash:
            return _run_script(turn, script)
        return _answer_from_output(turn, intent, script, bash[-1].result or "")
    data = intent.data_file
    if data is None:
        return Step(
            text="Which data file should the script read? Name a `.csv` file in the prompt."
        )
    if not bash:
        return turn.call(
            "bash",
            {
                "description": f"Show the head of {data}",
                "command": f"head -n 6 {shlex.quote(data)}",
            },
            f"Let me read the first lines of `{data}`.",
        )
    text_cols, numeric_cols = _columns(bash[0].result or "")
    question = question_text(turn.prompt)
    named_text = sorted(
        (mentioned(question, c), c) for c in text_cols if mentioned(question, c) >= 0
    )
    named_num = sorted(
        (mentioned(question, c), c) for c in numeric_cols if mentioned(question, c) >= 0
    )
    group = named_text[0][1] if named_text else (text_cols[0] if len(text_cols) == 1 else None)
    value = named_num[0][1] if named_num else (numeric_cols[0] if len(numeric_cols) == 1 else None)
    if group is None or value is None:
        return Step(
            text=f"`{data}` has text columns {text_cols} and numeric columns {numeric_cols}; "
            "say which to group by and which to total."
        )
    if not turn.done("write"):
        return turn.call(
            "write",
            {"file_path": script, "content": script_source(data, group, value)},
            f"Writing `{script}`: total `{value}` per `{group}`.",
        )
    if len(bash) < 2:
        return _run_script(turn, script)
    return _answer_from_output(turn, intent, script, bash[-1].result or "")
