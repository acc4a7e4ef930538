"""The instruction files and skills the runtime loads for a run, found where it looks.

What the runtime 0.2.1 puts in front of the model (checked against the real runtime: a marker in
each file, looked for in the model's requests, ``tests/test_instructions_real.py``):

- the workspace's ``AGENTS.md`` and ``CLAUDE.md`` (the runtime's working directory), whole;
- the user-level ``AGENTS.md`` in ``DSH_AGENTS_HOME`` (default ``~/.agents``), whole (a
  ``CLAUDE.md`` there is not read);
- each skill's ``SKILL.md`` under ``.dsh/skills/<name>/`` and ``.agents/skills/<name>/`` of the
  workspace and ``skills/<name>/`` of ``DSH_AGENTS_HOME``: its front matter's description up
  front, the rest when the model calls the ``skill`` tool.

Guarantees: reads only names and sizes (:func:`instruction_files`) or, for ``%dsh rules``, at
most :data:`RULES_MAX` characters per file (:func:`read_instruction`); never raises for a
missing, unreadable or odd path (it is left out); at most :data:`FILES_MAX` files.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

__all__ = [
    "FILES_MAX",
    "RULES_MAX",
    "InstructionFile",
    "agents_home",
    "instruction_files",
    "instructions_line",
    "read_instruction",
]

FILES_MAX = 40
RULES_MAX = 20_000
"""Characters of one file ``%dsh rules`` shows (the rest is named, not shown)."""

Kind = Literal["workspace", "user", "skill"]


@dataclass(frozen=True)
class InstructionFile:
    """One file the runtime loads: how to name it, where it is, its size in bytes, and what it is."""

    label: str
    path: Path
    size: int
    kind: Kind


def agents_home(environ: Mapping[str, str] | None = None) -> Path:
    """``DSH_AGENTS_HOME`` as the runtime reads it (default: ``.agents`` in the home folder)."""
    env = os.environ if environ is None else environ
    value = env.get("DSH_AGENTS_HOME")
    return Path(value).expanduser() if value else Path.home() / ".agents"


def _file(path: Path, label: str, kind: Kind) -> InstructionFile | None:
    try:
        if not path.is_file():
            return None
        return InstructionFile(label, path, path.stat().st_size, kind)
    except OSError:
        return None


def _skills(root: Path, prefix: str) -> list[InstructionFile]:
    try:
        names = sorted(p.name for p in root.iterdir() if p.is_dir())
    except OSError:
        return []
    found = (
        _file(root / name / "SKILL.md", f"{prefix}/{name}/SKILL.md", "skill") for name in names
    )
    return [f for f in found if f is not None]


def instruction_files(workspace: Path, home: Path | None) -> list[InstructionFile]:
    """The files of ``workspace`` and of the user-level folder ``home`` the runtime loads, in
    the order above (``home`` ``None``: none of the user's)."""
    out = [
        f
        for f in (
            _file(workspace / "AGENTS.md", "AGENTS.md", "workspace"),
            _file(workspace / "CLAUDE.md", "CLAUDE.md", "workspace"),
        )
        if f is not None
    ]
    out += _skills(workspace / ".dsh" / "skills", ".dsh/skills")
    out += _skills(workspace / ".agents" / "skills", ".agents/skills")
    if home is not None:
        user = _file(home / "AGENTS.md", f"{home}/AGENTS.md", "user")
        out += [user] if user is not None else []
        out += _skills(home / "skills", f"{home}/skills")
    return out[:FILES_MAX]


def _size(n: int) -> str:
    if n < 10_000:
        return f"{n:,} byte" + ("" if n == 1 else "s")
    return f"{n / 1024:.0f} KB"


def instructions_line(files: list[InstructionFile]) -> str:
    """One line naming ``files`` with their sizes (``AGENTS.md (1,204 bytes), …``)."""
    if not files:
        return "Instructions the runtime loads: none (no AGENTS.md, CLAUDE.md or skills)."
    return "Instructions the runtime loads: " + ", ".join(
        f"{f.label} ({_size(f.size)})" for f in files
    )


def read_instruction(file: InstructionFile) -> str:
    """The text of ``file`` (at most :data:`RULES_MAX` characters; a cut says so), or why not."""
    try:
        with file.path.open(encoding="utf-8", errors="replace") as handle:
            text = handle.read(RULES_MAX + 1)
    except OSError as exc:
        return f"(not readable: {exc.strerror or exc})"
    if len(text) > RULES_MAX:
        return text[:RULES_MAX] + f"\n[… cut at {RULES_MAX:,} characters of {file.size:,} bytes …]"
    return text
