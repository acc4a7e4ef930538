"""The notebooks in ``notebooks/``: re-executed by nbval against the real runtime and the scripted
demo model, their saved outputs compared (strict ``--nbval``, with ``tests/nbval_sanitize.cfg``).

The demo model needs no server setup: with no ``DEEPSEEK_API_KEY`` and no ``DEEPSEEK_BASE_URL``
the kernel extension starts it by itself. Each nbval run gets a clean environment: those two
variables and every ``DSH_*`` setting removed, a fresh ``DSH_HOME`` and ``DSH_AGENTS_HOME``,
telemetry off.

Plain nbval works because a ``%%dsh`` cell waiting with nobody watching (nbclient, nbconvert,
papermill, nbval) shows nothing until the run settles and then the static transcript once, as one
``display_data``: there are no display updates for nbval to miss.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from dsh_notebook.testing.harnesses import runtime_available

REPO = Path(__file__).resolve().parents[1]
NOTEBOOKS = REPO / "notebooks"
SANITIZE = REPO / "tests" / "nbval_sanitize.cfg"
NOTEBOOK_NAMES = ["quickstart.ipynb", "data-exploration.ipynb", "approvals-and-questions.ipynb"]
NBVAL_TIMEOUT = 540  # seconds for one nbval subprocess (each notebook takes well under 30 s)


def real_notebook_run(test: Callable[..., None]) -> Callable[..., None]:
    """Marks of a test that executes notebooks: the real runtime, nbval, a longer timeout."""
    for mark in (
        pytest.mark.real_runtime,
        pytest.mark.skipif(not runtime_available(), reason="runtime wheel not installed"),
        pytest.mark.skipif(
            os.environ.get("DSH_SKIP_REAL_RUNTIME") == "1", reason="DSH_SKIP_REAL_RUNTIME=1"
        ),
        pytest.mark.timeout(NBVAL_TIMEOUT + 60),
    ):
        test = mark(test)
    return test


# -- helpers ---------------------------------------------------------------------------------------


def nbval_env(root: Path) -> dict[str, str]:
    """A clean environment: no key, no base URL (so the demo model), no DSH_* settings, fresh
    homes, telemetry off, nothing inherited from the pytest run that starts it."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("DEEPSEEK_", "DSH_", "PYTEST_", "JPY_"))
        and k not in ("MPLBACKEND", "PYTHONBREAKPOINT")
    }
    if os.environ.get("DSH_RUNTIME_BIN"):
        env["DSH_RUNTIME_BIN"] = os.environ["DSH_RUNTIME_BIN"]
    home = Path(tempfile.mkdtemp(prefix="dsh-home-", dir=root))
    agents = Path(tempfile.mkdtemp(prefix="dsh-agents-", dir=root))
    env.update(
        DSH_HOME=str(home),
        DSH_AGENTS_HOME=str(agents),
        DSH_TELEMETRY_MODE="DISABLED",
    )
    return env


def run_nbval(paths: list[Path], root: Path) -> tuple[subprocess.CompletedProcess[str], float]:
    command = [
        sys.executable, "-m", "pytest", "--nbval", "--nbval-current-env",
        "--nbval-sanitize-with", str(SANITIZE), "-p", "no:cacheprovider",
        "-o", "addopts=-ra", "-v",
        *[str(p) for p in paths],
    ]  # fmt: skip
    started = time.monotonic()
    proc = subprocess.run(
        command,
        cwd=REPO,
        env=nbval_env(root),
        capture_output=True,
        text=True,
        timeout=NBVAL_TIMEOUT,
        stdin=subprocess.DEVNULL,
    )
    return proc, time.monotonic() - started


def code_cells(name: str) -> list[dict[str, Any]]:
    notebook = json.loads((NOTEBOOKS / name).read_text())
    return [c for c in notebook["cells"] if c["cell_type"] == "code"]


def outputs_text(cell: dict[str, Any]) -> str:
    parts = []
    for output in cell.get("outputs", []):
        if output["output_type"] == "stream":
            parts.append("".join(output["text"]))
        for value in output.get("data", {}).values():
            parts.append("".join(value) if isinstance(value, list) else str(value))
    return "\n".join(parts)


def summary(proc: subprocess.CompletedProcess[str]) -> str:
    return f"exit {proc.returncode}\n--- stdout\n{proc.stdout[-8000:]}\n--- stderr\n{proc.stderr[-3000:]}"


# -- tests -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", NOTEBOOK_NAMES)
def test_saved_notebooks_hold_settled_transcripts(name: str) -> None:
    """What readers see on GitHub: executed top to bottom, no errors, every run settled."""
    cells = code_cells(name)
    assert [c["execution_count"] for c in cells] == list(range(1, len(cells) + 1)), (
        f"{name} must be saved from one execution, top to bottom (notebooks/README.md)"
    )
    for cell in cells:
        source = "".join(cell["source"])
        assert not [o for o in cell["outputs"] if o["output_type"] == "error"], source
        if source.startswith("%%dsh"):
            shown = [o for o in cell["outputs"] if o["output_type"] == "display_data"]
            assert len(shown) == 1, source
            plain = "".join(shown[0]["data"]["text/plain"])
            assert " · settled · " in plain, source  # the one-line summary beside the markdown
            markdown = "".join(shown[0]["data"]["text/markdown"])
            assert "finish reason `completed`" in markdown, source
            assert "demo analyst — no API key set" in markdown, source
        assert "execution" not in cell["metadata"], "save without timing metadata (README)"


@pytest.mark.parametrize("name", NOTEBOOK_NAMES)
def test_shipped_notebooks_ask_the_demo_analyst_not_scripted_scenarios(name: str) -> None:
    """Prompts a data person would type: no ``[[scenario:…]]`` tag picks a canned reply."""
    for cell in code_cells(name):
        source = "".join(cell["source"])
        assert "[[scenario:" not in source and "[[target:" not in source, source


def test_notebook_prose_keeps_the_key_out_of_cells_and_tells_the_start_as_it_is() -> None:
    """Issue 29: the README's rules (the key through the environment or ``%dsh key``, never a
    cell; the runtime starts in the background after loading) hold in the prose too."""
    for name in NOTEBOOK_NAMES:
        notebook = json.loads((NOTEBOOKS / name).read_text())
        prose = "".join("".join(c["source"]) for c in notebook["cells"] if c["cell_type"] != "code")
        assert "DshMagics.api_key" not in prose, name
        assert "Nothing starts yet" not in prose, name
    quickstart = (NOTEBOOKS / "quickstart.ipynb").read_text()
    assert "%dsh key" in quickstart and "starts in the background" in quickstart


def test_approvals_notebook_shows_its_lessons_from_the_data() -> None:
    """A rejected approval that ran nothing, the same one allowed (answer = pandas' totals), a
    question dismissed with nobody to answer (and said so), a subagent's report quoted."""
    out = {c["id"]: outputs_text(c) for c in code_cells("approvals-and-questions.ipynb")}
    assert "**Approval** for `run_python`: **rejected** (by policy)" in out["reject"]
    assert "Nobody can approve code in this run (it runs unattended" in out["reject"]
    assert "You rejected it" not in out["reject"]  # a policy refused it, not the person
    assert "nothing was executed" in out["reject-check"]
    assert "DSH-ANALYST" not in out["reject-check"]
    assert "**Approval** for `run_python`: **allowed once** (by policy)" in out["allow"]
    assert "- Lyon: 13\n- Lille: 12\n- Nantes: 11" in out["allow"]
    assert "value of the last expression:\nSeries 'units'" in out["allow-check"]
    assert "Lyon      13" in out["allow-check"] and "DSH-ANALYST" not in out["allow-check"]
    assert "**Question** · dismissed" in out["question"]
    assert "The question was dismissed without an answer" in out["question"]
    assert "**Subagent** Check" in out["subagent"] and "`price` 1" in out["subagent"]
    assert "subagent sessions seen: 1" in out["subagent-check"]


@real_notebook_run
@pytest.mark.parametrize("name", NOTEBOOK_NAMES)
def test_notebook_passes_nbval(name: str, tmp_path: Path) -> None:
    """Each shipped notebook on its own nbval run (one per test, so a parallel suite spreads them)."""
    pytest.importorskip("nbval")
    proc, elapsed = run_nbval([NOTEBOOKS / name], tmp_path)
    total = len(code_cells(name))
    assert proc.returncode == 0, summary(proc)
    assert re.search(rf"\b{total} passed\b", proc.stdout), summary(proc)
    assert "unhandled iopub msg: update_display_data" not in proc.stdout, summary(proc)
    print(f"nbval: {total} cells of {name} in {elapsed:.1f} s")


@real_notebook_run
def test_nbval_fails_when_a_saved_output_is_changed(tmp_path: Path) -> None:
    """The control: the same check on a copy whose saved outputs were edited must fail, at the
    edited cells and nowhere else — a printed ``final_response`` and the final answer inside a
    settled ``%%dsh`` transcript (proving the transcript is compared in its settled state)."""
    pytest.importorskip("nbval")
    work = tmp_path / "copy"
    work.mkdir()
    copy = work / "quickstart.ipynb"
    shutil.copy(NOTEBOOKS / "quickstart.ipynb", copy)
    notebook = json.loads(copy.read_text())
    cells = [c for c in notebook["cells"] if c["cell_type"] == "code"]
    by_id = {c["id"]: c for c in cells}

    original = "The largest is **tea** with 12."
    edited = "The largest is **coffee** with 11."
    stream = by_id["result"]["outputs"][0]
    assert stream["output_type"] == "stream" and original in "".join(stream["text"])
    stream["text"] = [line.replace(original, edited) for line in stream["text"]]
    transcript = by_id["tool"]["outputs"][0]["data"]
    text = "".join(transcript["text/markdown"])
    assert original in text
    transcript["text/markdown"] = text.replace(original, edited)
    copy.write_text(json.dumps(notebook, indent=1, ensure_ascii=False) + "\n")

    proc, _ = run_nbval([copy], tmp_path)
    assert proc.returncode == 1, summary(proc)
    failed = {int(n) for n in re.findall(r"FAILED \S*::Cell (\d+) ", proc.stdout)}
    expected = {cells.index(by_id["tool"]), cells.index(by_id["result"])}
    assert failed == expected, summary(proc)
    assert f"{len(cells) - 2} passed" in proc.stdout, summary(proc)
    # the diff names both versions (pytest shortens long texts to their ends)
    assert "with 11." in proc.stdout and "with 12." in proc.stdout, summary(proc)


def sanitize_patterns() -> list[tuple[str, str]]:
    """The ``regex:``/``replace:`` pairs of the sanitizer, read as nbval reads them."""
    return re.findall(r"^regex: (.*)$\n^replace: (.*)$", SANITIZE.read_text(), flags=re.M)


def test_every_sanitizer_regex_that_starts_with_a_repeated_class_starts_at_a_word() -> None:
    """nbval applies each pattern to every text output, saved and fresh, with ``re.sub``. A pattern
    that opens with a repeated character class (``[^\\s…]*/tmp…``) and no anchor is retried from
    every character of a long word and scans the rest of it each time: on a transcript holding a
    figure's base64 (60 KB) one such pattern took 22 s, and one notebook's nbval run 140 s of
    CPU. Anchored by a lookbehind (a match starts at a word), it is linear."""
    patterns = sanitize_patterns()
    assert len(patterns) >= 10  # read as nbval reads them: a parse that finds nothing fails here
    opens_with_a_repeated_class = re.compile(r"^\[(?:\\.|[^\]])+\][*+]")
    unanchored = [p for p, _ in patterns if opens_with_a_repeated_class.match(p)]
    assert not unanchored, f"anchor these with a lookbehind (?<!…): {unanchored}"
    for pattern, _ in patterns:
        re.compile(pattern)
