"""``notebooks/fix-with-dsh.ipynb`` holds the truthful transcript of a real run (issue 47 item
4): the run is played again in a real JupyterLab (the demo analyst, no key; the clicks of
``tests/browser/fix_notebook.py``) and every cell's source and outputs are compared with the
shipped ones, normalized only as nbval normalizes the other notebooks (``tests/nbval_sanitize.cfg``)
plus what a replay cannot repeat: the Fix with dsh cell's fresh id and the traceback's library
frames (paths and line numbers of the installed pandas).

After a change that moves these outputs (the analyst's words, the transcript format, pandas),
write the notebook again: ``.venv/bin/python scripts/fix_with_dsh_notebook.py``."""

from __future__ import annotations

import difflib
import json
import re
from typing import Any

import pytest

from .conftest import REPO, SharedServers
from .fix_notebook import play, shipped, write_cells

pytestmark = [pytest.mark.browser, pytest.mark.timeout(400)]

SHIPPED = REPO / "notebooks" / "fix-with-dsh.ipynb"
SANITIZE = REPO / "tests" / "nbval_sanitize.cfg"
#: what a replay cannot repeat, beside nbval's patterns
REPLAY = [
    # the library frames between the failing line and the exception (installed pandas)
    (r"\nFile [^\n]*site-packages/[\s\S]*?(?=\nKeyError: )", "\n<library frames>"),
    (r"%%dsh cell with id [0-9a-f]{8}", "%%dsh cell with id <id>"),
]


def normalized(text: str) -> str:
    pairs = re.findall(r"^regex: (.*)$\n^replace: (.*)$", SANITIZE.read_text(), flags=re.M)
    for pattern, replacement in [*REPLAY, *pairs]:
        text = re.sub(pattern, replacement.rstrip() if replacement.strip() else "", text)
    return text


def cells_of(notebook: dict[str, Any]) -> list[tuple[str, str, list[str]]]:
    """Each cell's type, source and outputs' texts (every text MIME type; an error's name and
    value), normalized."""
    out = []
    for cell in notebook["cells"]:
        texts = []
        for output in cell.get("outputs", []):
            if output["output_type"] == "error":
                texts.append(f"{output['ename']}: {output['evalue']}")
            elif output["output_type"] == "stream":
                texts.append("".join(output["text"]))
            for mime, value in sorted(output.get("data", {}).items()):
                if mime.startswith("text/"):
                    texts.append(
                        f"{mime}\n" + ("".join(value) if isinstance(value, list) else value)
                    )
        source = "".join(cell["source"])
        out.append((cell["cell_type"], normalized(source), [normalized(t) for t in texts]))
    return out


def test_the_shipped_notebook_is_what_a_replay_of_its_run_saves(
    browser: Any, shared_servers: SharedServers
) -> None:
    lab = shared_servers("lab")
    write_cells(lab.root / SHIPPED.name)  # the same path: the context block names it
    saved = shipped(play(browser, lab, SHIPPED.name))
    expected = json.loads(SHIPPED.read_text())
    replayed, kept = cells_of(saved), cells_of(expected)
    assert [c[:2] for c in replayed] == [c[:2] for c in kept]  # types and sources
    for fresh, old in zip(replayed, kept, strict=True):
        diff = difflib.unified_diff(
            "\n".join(old[2]).splitlines(), "\n".join(fresh[2]).splitlines(),
            "shipped", "replayed", lineterm="",
        )  # fmt: skip
        assert fresh[2] == old[2], "\n".join(diff)
