"""Fix with dsh without a model: the one-line change as an ``edit_cell``, then ``run_cells``.

The page's Fix with dsh button sends ``Fix the error in cell <short id> (edit it with
edit_cell; …)`` with the cell's traceback (``js/labextension/src/insertions.ts``). For the errors
:mod:`.explain` can explain and fix from the kernel's real names (a missing column or variable
with a close match, a mistyped module with a close match among the standard library and the
common data libraries, a common data library that is not installed (a ``%pip install`` line
above its import), a missing file with a close match in its folder), the analyst proposes
the change through the real notebook cell tools (``docs/cell-editing.md``), one call per step:

1. ``notebook_cells`` of that cell: its current source (and, for the cell tools' stale check,
   the conversation has now read it);
2. the names the fix needs: ``notebook_variables`` and ``describe_variable`` of the frames the
   cell uses (:func:`kernel_names`, shared with Ask dsh), or ``glob`` of the file's folder;
3. ``edit_cell`` of the lines that use the missing name (a diff card the person applies);
4. once the page confirmed it (``Applied:``), ``run_cells`` of that cell (a card too);
5. the answer: what ran, and that "Undo this run" takes the edit back.

Where it cannot fix (no close match, the tools off, no page that can apply edits, a subagent,
a rejected card) the answer says so in one line. Stateless like the rest of the analyst: the
step follows from the prompt and this turn's tool results alone; pure, never raises on
malformed results.
"""

from __future__ import annotations

import builtins
import posixpath
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Final

from ..scripted_model import Step
from .explain import FILE_MISSING, MODULE_MISSING, Failure, explain, fixed_span, similar
from .names import Frame, Variable, parse_frame, parse_variables
from .turn import Exchange, Turn, say

__all__ = ["Change", "fix_step", "fix_target", "kernel_names", "proposed_change"]

_FIX_REQUEST: Final = re.compile(r"\bfix\b[^\n]*?\bcell\s+`?([A-Za-z0-9][\w-]{3,})`?", re.I)
_NO_PAGE: Final = "The notebook itself could not be read"
_PIP_NAMES: Final = {
    "pandas": "pandas", "numpy": "numpy", "matplotlib": "matplotlib", "seaborn": "seaborn",
    "scipy": "scipy", "sklearn": "scikit-learn", "statsmodels": "statsmodels",
    "plotly": "plotly", "polars": "polars", "pyarrow": "pyarrow", "requests": "requests",
}  # fmt: skip
"""The common data libraries (module -> pip package): a module one names is installed with an
added ``%pip install`` line; a name close to one (or to a standard-library module) is a typo."""
_LINE_MAX: Final = 300
_CANNOT: Final = "I can't fix this with an edit: "


def fix_target(prompt: str) -> str | None:
    """The cell id a Fix with dsh prompt names (``Fix the error in cell 1a2b3c4d``), else None."""
    match = _FIX_REQUEST.search(prompt)
    return match.group(1) if match else None


@dataclass(frozen=True)
class Change:
    """One proposed edit: ``old`` (whole lines of the cell) becomes ``new``.

    Attributes:
        old: the cell's lines that use the missing name, as they are.
        new: those lines fixed.
        missing: the name the error says is missing.
        meant: the name put in its place.
        why: one sentence saying what is wrong (``there is no column `staton` in `trips```).
        install: the pip package an added ``%pip install`` line installs (a common data
            library that is not installed), else ``None``.
    """

    old: str
    new: str
    missing: str
    meant: str
    why: str
    install: str | None = None


def _code(text: str) -> str:
    """``text`` as one bounded inline code span."""
    flat = " ".join(text.split())
    flat = flat if len(flat) <= _LINE_MAX else flat[: _LINE_MAX - 1] + "…"
    fence = "``" if "`" in flat else "`"
    return f"{fence}{flat}{fence}" if fence == "`" else f"{fence} {flat} {fence}"


def kernel_names(turn: Turn, failure: Failure) -> Step | tuple[list[Variable], list[Frame]]:
    """The kernel's variables and the frames ``failure.code`` uses (up to three), or the tool
    call that reads the next of them (``notebook_variables``, then ``describe_variable``)."""
    variables: list[Variable] = []
    if failure.wants_variables and turn.offers("notebook_variables"):
        listed = turn.done("notebook_variables")
        if not listed:
            return turn.call("notebook_variables", {}, "Let me see what is in your kernel.")
        variables = parse_variables(listed[-1].result or "")
    frames: list[Frame] = []
    if failure.wants_frames and turn.offers("describe_variable"):
        used = [
            v for v in variables
            if v.is_frame and re.search(rf"(?<![\w.]){re.escape(v.name)}\b", failure.code)
        ] or [v for v in variables if v.is_frame][:1]  # fmt: skip
        for var in used[:3]:
            described = [
                e for e in turn.done("describe_variable") if e.input.get("name") == var.name
            ]
            if not described:
                return turn.call(
                    "describe_variable", {"name": var.name}, f"Let me look at `{var.name}`."
                )
            frame = parse_frame(var.name, described[-1].result or "")
            if frame is not None:
                frames.append(frame)
    return variables, frames


def _frames_used(code: str, frames: Sequence[Frame]) -> list[Frame]:
    used = [f for f in frames if re.search(rf"(?<![\w.]){re.escape(f.name)}\b", code)]
    return used or list(frames)


def proposed_change(
    failure: Failure,
    source: str,
    variables: Sequence[Variable],
    frames: Sequence[Frame],
    files: Sequence[str] = (),
) -> Change | str:
    """The edit of ``source`` that fixes ``failure``, or one sentence saying why there is none.

    Names come from the kernel (``variables``, ``frames``; Python's builtins for a variable),
    module names from the standard library and the common data libraries (one of those that is
    not installed gets a ``%pip install`` line above its import), file names from
    ``files`` (the names in the missing file's folder); a fix is proposed only for a close
    match (:func:`~.explain.similar`) that the cell's code really uses in a line."""
    missing, candidates, what = failure.missing, [], ""
    if failure.type == "NameError" and missing:
        candidates = similar(missing, [v.name for v in variables] + dir(builtins))
        what = f"there is no variable `{missing}` in your kernel"
    elif failure.wants_frames and missing:
        used = _frames_used(source, frames)
        if not used:
            return _CANNOT + (
                f"the code indexes no DataFrame I can see, so I cannot tell what `{missing}` "
                "should be."
            )
        candidates = similar(missing, [c.name for f in used for c in f.columns])
        what = f"there is no column `{missing}` in `{used[0].name}`"
        if not candidates:
            shown = ", ".join(f"`{c.name}`" for c in used[0].columns[:12])
            frame = used[0].name
            return _CANNOT + f"`{frame}` has no column like `{missing}` (its columns: {shown})."
    elif (module := MODULE_MISSING.search(failure.message)) is not None:
        missing = module.group(1)
        top = missing.split(".")[0]
        if top in _PIP_NAMES:
            return _install(source, top, _PIP_NAMES[top])
        known = sorted(set(sys.stdlib_module_names) | set(_PIP_NAMES))
        candidates = [] if "." in missing else [c for c in similar(missing, known) if c != missing]
        if not candidates:
            return _CANNOT + (
                f"the module `{top}` is not installed in the kernel's environment; install it "
                f"with `%pip install {top}` in a cell of its own and restart the kernel."
            )
        what = f"there is no module `{missing}`"
    elif (path := FILE_MISSING.search(failure.message)) is not None:
        missing = path.group(1)
        name = posixpath.basename(missing)
        found = [c for c in similar(name, files) if c != name]
        if not found:
            return _CANNOT + (
                f"there is no file `{missing}` and none with a similar name in its folder; check "
                "the path (`%pwd` shows the kernel's working directory)."
            )
        candidates = [posixpath.join(posixpath.dirname(missing), found[0])]
        what = f"there is no file `{missing}`"
    else:
        return (
            f"I can't fix {_code(failure.line)} with an edit without a language model (the demo "
            "analyst fixes missing columns, variables, modules and files with a close match only)."
        )
    if not missing or not candidates:
        return _CANNOT + f"{what} and nothing in it has a similar name."
    if candidates[0] == missing:
        return _CANNOT + f"`{missing}` exists now, so the cell only needs to run again."
    span = fixed_span(source, missing, candidates[0])
    if span is None:
        return _CANNOT + f"{what}, and no line of the cell spells `{missing}` out."
    return Change(span[0], span[1], missing, candidates[0], what)


def _install(source: str, module: str, package: str) -> Change | str:
    """A ``%pip install`` line above the cell's first top-level import of ``module``."""
    imports = re.compile(rf"^(?:import|from)\s+{re.escape(module)}\b")
    line = next((ln for ln in source.splitlines() if imports.match(ln)), None)
    if line is None:
        return _CANNOT + (
            f"the module `{module}` is not installed and no top-level line of the cell imports "
            f"it; install it with `%pip install {package}` in a cell of its own."
        )
    what = f"the module `{module}` is not installed in the kernel's environment"
    return Change(line, f"%pip install {package}\n{line}", module, f"%pip install {package}",
                  what, install=package)  # fmt: skip


def cell_source(result: str, cell_id: str) -> str | None:
    """The source of cell ``cell_id`` in a ``notebook_cells`` result that lists it whole, or
    ``None`` when it does not list it (the page was not read, no such cell)."""
    lines = result.splitlines()
    short = cell_id[:8]
    start = next(
        (i for i, ln in enumerate(lines) if ln.startswith("## cell ") and f" · id {short}" in ln),
        None,
    )
    if start is None:
        return None
    body: list[str] = []
    for line in lines[start + 1 :]:
        if line.startswith(("→ ", "## cell ")):
            break
        body.append(line)
    source = "\n".join(body).rstrip()
    return "" if source == "(empty)" else source


def _first_line(text: str | None) -> str:
    lines = [ln.strip() for ln in (text or "").splitlines() if ln.strip()]
    return lines[0] if lines else "no answer"


def _cannot(turn: Turn, failure: Failure, why: str) -> Step:
    """One line saying why there is no edit, then the explanation from the kernel's names."""
    names = kernel_names(turn, failure)
    if isinstance(names, Step):
        return names
    return say(f"{why}\n\n{explain(failure, *names)}")


def _read(turn: Turn, cell_id: str) -> Exchange | None:
    for exchange in reversed(turn.done("notebook_cells")):
        if exchange.input.get("cell_ids") == [cell_id]:
            return exchange
    return None


def _files_step(turn: Turn, failure: Failure) -> Step | list[str]:
    """The names in the missing file's folder (a ``glob`` of it), or the call that lists them."""
    path = FILE_MISSING.search(failure.message)
    if path is None or not turn.offers("glob"):
        return []
    folder = posixpath.dirname(path.group(1)) or "."
    listed = [e for e in turn.done("glob") if e.input.get("path") == folder]
    if not listed:
        return turn.call(
            "glob", {"pattern": "*", "path": folder}, f"Let me list the files in `{folder}`."
        )
    if listed[-1].is_error:
        return []
    lines = (listed[-1].result or "").splitlines()
    return [posixpath.basename(ln.strip().rstrip("/")) for ln in lines if ln.strip()]


def fix_step(turn: Turn, failure: Failure, cell_id: str) -> Step:
    """The next step of Fix with dsh for ``failure`` in cell ``cell_id`` (module docstring)."""
    where = f"cell {cell_id}"
    if turn.parent is not None:
        why = "I am a subagent, and only the run you started can ask you to apply an edit."
        return _cannot(turn, failure, f"I can't edit {where}: {why}")
    if not (turn.offers("edit_cell") and turn.offers("notebook_cells")):
        why = "the notebook's cell tools are off in this kernel (they go with `run_python`)."
        return _cannot(turn, failure, f"I can't edit {where}: {why}")
    read = _read(turn, cell_id)
    if read is None:
        return turn.call("notebook_cells", {"cell_ids": [cell_id]}, f"Let me read {where}.")
    if read.is_error or (read.result or "").startswith(_NO_PAGE):
        why = (
            "no notebook page that can apply edits answered (open the notebook in JupyterLab 4 "
            "or Notebook 7 with the dsh-notebook extension)."
        )
        return _cannot(turn, failure, f"I can't edit {where}: {why}")
    source = cell_source(read.result or "", cell_id)
    if source is None:
        why = f"the notebook has no such cell now ({_first_line(read.result)})"
        return say(f"I can't fix {where}: {why}.")
    failure = replace(failure, code=source)
    names = kernel_names(turn, failure)
    if isinstance(names, Step):
        return names
    files = _files_step(turn, failure)
    if isinstance(files, Step):
        return files
    change = proposed_change(failure, source, *names, files)
    if isinstance(change, str):
        return say(change)
    return _edit_and_run(turn, cell_id, change)


def _edit_and_run(turn: Turn, cell_id: str, change: Change) -> Step:
    where = f"cell {cell_id}"
    edits = turn.done("edit_cell")
    if not edits:
        how = (
            f"`{change.meant}` above the import installs it from PyPI"
            if change.install
            else f"`{change.meant}` is the close match"
        )
        text = (
            f"In {where} {change.why}; {how}. I propose this change (review the diff, then "
            "Apply or Reject):"
        )
        args = {"cell_id": cell_id, "old_text": change.old, "new_text": change.new}
        return turn.call("edit_cell", args, text)
    edit = edits[-1]
    if edit.is_error or not (edit.result or "").startswith("Applied:"):
        return say(f"Cell {cell_id} is unchanged: {_first_line(edit.result)}")
    runs = turn.done("run_cells")
    if not runs:
        return turn.call(
            "run_cells",
            {"cell_ids": [cell_id]},
            (
                f"Applied: the cell now installs `{change.install}` first. I will run {where} "
                "(it installs from PyPI; approve the run)."
                if change.install
                else f"Applied: `{change.missing}` is now `{change.meant}`. I will run {where} to "
                "check the fix (approve the run)."
            ),
        )
    run = runs[-1]
    result = run.result or ""
    undo = '"Undo this run" on this prompt cell takes the edit back.'
    yours = "The user edited your change" in (edit.result or "")
    if "(ok)" in _first_line(result):
        how = "with your version of the change" if yours else f"with `{change.meant}`"
        return say(f"Cell {cell_id} ran without an error {how}. {undo}")
    error = next((ln for ln in result.splitlines() if ln.startswith("error: ")), None)
    if error is not None:
        return say(f"Cell {cell_id} ran and still fails ({_code(error[7:])}). {undo}")
    return say(f"The fix is in {where}, but it was not run: {_first_line(result)} {undo}")
