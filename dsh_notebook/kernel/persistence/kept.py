"""What a settled run leaves for Restart & Run All: its static transcript and the variables it made.

When a prompt is skipped because it was answered before (see :mod:`.ledger`), its cell shows the
transcript it had, with a one-line note that it was not sent again, and, when its approved
``run_python`` calls had changed the kernel, which variables they made (those are not recreated:
the kernel is new). The variables are read from the code that ran: top-level assignments,
imports, functions and classes of each approved ``run_python`` call. When the run wrote agent
cells (:mod:`.agent_cells`), the note says instead that those cells, which Run All runs next,
recreate them.

A run still in progress keeps its live transcript too (:mod:`.run` decides when), marked
*interrupted*: if the kernel stops before the run ends, that is the last copy there is, and a
skipped cell shows it under "interrupted — the kernel stopped before this run ended". When
nothing was kept, the skipped cell says so (:data:`NOT_KEPT`) and claims no copy anywhere.

A kept transcript is shown as ``text/markdown`` and ``text/plain`` only (:data:`KEPT_MIMES`): the
file it comes from is data anyone who can write ``DSH_HOME`` may have changed, and other types
(``text/html``, ``application/javascript``) would run in the page.
"""

from __future__ import annotations

import ast
import json
import time
from typing import TYPE_CHECKING, Any

from ...transcript import Transcript, markdown_companion
from ...transcript.schema import Item, Snapshot
from ..showing.rendering import PLAIN_KEY, Rendering, rendering_of

if TYPE_CHECKING:
    from ...runtime.secret import Secrets

__all__ = [
    "INTERRUPTED",
    "KEPT_MIMES",
    "NOT_KEPT",
    "keepable",
    "kept_record",
    "made_variables",
    "skipped_bundle",
]

KEPT_MIMES: tuple[str, ...] = ("text/markdown", "text/plain")
"""The only MIME types a kept transcript is shown as."""

INTERRUPTED = "interrupted — the kernel stopped before this run ended"
"""The mark of a transcript kept while its run was in progress, shown after a restart."""

NOT_KEPT = "No transcript of that run was kept, so none is shown."
"""Said by a skipped cell whose run left no transcript (its kernel stopped before keeping one)."""

_RUN_PYTHON = "run_python"
_REJECTED_PREFIX = "The user rejected running this code"


def _names(code: str) -> list[str]:
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError):
        return []
    out: list[str] = []
    for node in tree.body:
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
            targets = [node.target]
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.append(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            out += [(a.asname or a.name).split(".")[0] for a in node.names if a.name != "*"]
        for target in targets:
            for leaf in ast.walk(target):
                if isinstance(leaf, ast.Name):
                    out.append(leaf.id)
    return out


def _tools(items: list[Item]) -> list[Item]:
    out: list[Item] = []
    for item in items:
        if item["kind"] == "tool":
            out.append(item)
            if item["subagent"] is not None:
                out += _tools(item["subagent"]["items"])
        elif item["kind"] == "subagent":
            out += _tools(item["items"])
    return out


def made_variables(snapshot: Snapshot) -> list[str]:
    """Names the run's approved, successful ``run_python`` calls bound in the kernel, in order."""
    names: list[str] = []
    for item in _tools(snapshot["items"]):
        if item["kind"] != "tool" or not item["name"].endswith(_RUN_PYTHON):
            continue
        if (
            item["state"] != "done"
            or item["is_error"]
            or (item["result"] or "").startswith(_REJECTED_PREFIX)
        ):
            continue
        args: Any = item["args"]
        if not isinstance(args, dict):
            try:
                args = json.loads(item["arguments"])
            except ValueError:
                continue
        code = args.get("code") if isinstance(args, dict) else None
        if isinstance(code, str):
            names += [n for n in _names(code) if n not in names]
    return names


def kept_record(
    rendering: Rendering, *, interrupted: bool = False
) -> tuple[dict[str, str], list[str]]:
    """What the ledger keeps of a transcript's state: ``text/markdown`` and the whole plain-text
    transcript, both masked and UTF-8 encodable (as ``rendering`` hands them out, so a settle
    reuses the markdown it published), and the variables its approved ``run_python`` calls
    made. ``interrupted`` (a run in progress, shown only once its kernel stopped): its
    interrupted copy, where no card reads as waiting (:attr:`Rendering.interrupted`). Call it
    from the thread that owns the transcript (the pump's)."""
    if interrupted:
        copy = rendering.interrupted
        bundle = {"text/markdown": copy["text/markdown"], "text/plain": copy[PLAIN_KEY]}
    else:
        bundle = {"text/markdown": rendering.markdown, "text/plain": rendering.text}
    return bundle, made_variables(rendering.snapshot)


def keepable(transcript: Transcript, secrets: Secrets) -> tuple[dict[str, str], list[str]]:
    """:func:`kept_record` of ``transcript``'s state now (one snapshot serves all three)."""
    return kept_record(rendering_of(transcript, secrets))


def skipped_bundle(
    bundle: dict[str, str],
    variables: list[str],
    session_id: str,
    *,
    agent_cells: int = 0,
    plain_transcript: bool = False,
    interrupted: bool = False,
    kept_at: float | None = None,
) -> dict[str, str]:
    """The kept transcript with a note on top: not sent again, and what was not recreated
    (or, when the run inserted ``agent_cells``, that those cells recreate it). An
    ``interrupted`` transcript (kept while its run was in progress, at ``kept_at``) is marked
    :data:`INTERRUPTED` first.

    ``bundle`` is what the ledger keeps: ``text/markdown`` and the whole plain-text transcript
    (whose first line is its summary line). Its ``text/plain`` stays whole only with
    ``plain_transcript`` (a text display prints it); otherwise it becomes the one-line companion
    of the markdown, as in a cell's own settled output. Other MIME types in ``bundle`` are
    dropped (:data:`KEPT_MIMES`)."""
    if interrupted:
        at = (
            ""
            if kept_at is None
            else time.strftime(" (%Y-%m-%d %H:%M:%S)", time.localtime(kept_at))
        )
        note = (
            f"{INTERRUPTED}. This is its transcript as last kept{at}; the prompt was sent in "
            f"session `{session_id}` and is not sent again. Re-run with `--force` to send it again."
        )
    else:
        note = (
            f"not sent again: this prompt was answered in session `{session_id}` before; this is "
            "its transcript. Re-run with `--force` to send it again."
        )
    if variables:
        shown = ", ".join(f"`{v}`" for v in variables[:12]) + (" …" if len(variables) > 12 else "")
        if agent_cells:
            note += (
                f" Its approved run_python code had made {shown}; the {agent_cells} agent "
                "cell(s) it wrote below this cell (tag `dsh-agent`) recreate them when they run."
            )
        else:
            note += (
                f" Its approved run_python code had made {shown} in the kernel; they were not "
                "recreated in this kernel."
            )
    plain = note.replace("`", "")
    out = {mime: bundle[mime] for mime in KEPT_MIMES if mime in bundle}
    if "text/markdown" in out:
        out["text/markdown"] = f"> **dsh** {note}\n\n" + out["text/markdown"]
    text = out.get("text/plain", "")
    if not plain_transcript and "text/markdown" in out:
        text = markdown_companion(text.split("\n", 1)[0])
    out["text/plain"] = f"dsh: {plain}\n\n" + text
    return out
