"""IPython's own syntax in a card's code, made Python for the analysis: a line pre-pass.

``!cmd``, ``x = !cmd``, ``%magic …`` and a first ``%%cell`` line are not Python; IPython's input
transformers would make them calls of the shell, which the analysis could not tell apart from the
person's code. :func:`prepass` replaces each such line by ``pass`` (or ``x = None`` for an
assignment, so ``x`` still counts as bound) and notes what the line does: a process, an install,
a file (``%%writefile``), or "cannot tell" for magics it does not know. A ``%%time`` body is
Python and is analysed; a ``%%bash`` body is a process. Never raises.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .effects import (
    PROCESS_CELL_MAGICS,
    PYTHON_BODY_CELL_MAGICS,
    QUIET_MAGICS,
    FileEffect,
    FileVerb,
    OutsideEffect,
    command_effect,
    short,
)

__all__ = ["Prepass", "prepass"]


_ASSIGN_SPECIAL = re.compile(r"^(\s*)([A-Za-z_][\w.]*(?:\s*,\s*[A-Za-z_]\w*)*)\s*=\s*([!%])(.*)$")
_SPECIAL = re.compile(r"^(\s*)(!|%%?)(.*)$")


@dataclass
class Prepass:
    source: str
    outside: list[OutsideEffect] = field(default_factory=list)
    unknown: list[str] = field(default_factory=list)
    files: list[FileEffect] = field(default_factory=list)


def _magic(name: str, rest: str, pre: Prepass) -> None:
    """One line magic ``%name rest``: what it does that the analysis reports."""
    if name in ("pip", "conda", "mamba", "micromamba", "uv"):
        if re.search(r"\binstall\b|\buninstall\b|\bremove\b|\bupdate\b|\bupgrade\b", rest):
            pre.outside.append(OutsideEffect("install", short(f"%{name} {rest}")))
    elif name in ("system", "sx", "sc"):
        pre.outside.append(command_effect(rest, "!"))
    elif name in ("cd", "pushd", "popd"):
        pre.outside.append(OutsideEffect("process", short(f"%{name} {rest}: changes the working "
                                                           "directory")))  # fmt: skip
    elif name in ("env", "set_env"):
        if "=" in rest or (name == "set_env" and rest.strip()):
            pre.unknown.append(short(f"%{name} {rest}") + ": sets an environment variable")
    elif name not in QUIET_MAGICS:
        pre.unknown.append(f"%{name}: a magic; what it changes is not analysed")


def prepass(code: str) -> Prepass:
    """``code`` with IPython's special lines made Python (each becomes ``pass``, or a binding
    of its target for ``x = !ls``), and the effects those lines have. A ``%%`` first line
    either hands its body over (``%%time``: the body is Python) or replaces it (``%%bash``)."""
    pre = Prepass("")
    lines = code.splitlines()
    first = next((i for i, line in enumerate(lines) if line.strip()), None)
    if first is not None and lines[first].lstrip().startswith("%%"):
        head = lines[first].strip()[2:].split(None, 1)
        name, rest = (head[0] if head else ""), (head[1] if len(head) > 1 else "")
        body = lines[first + 1 :]
        if name in PYTHON_BODY_CELL_MAGICS:
            lines = [""] * (first + 1) + body
        else:
            if name in PROCESS_CELL_MAGICS:
                command = " ".join(line.strip() for line in body if line.strip())
                pre.outside.append(command_effect(command, f"%%{name}: "))
            elif name == "writefile":
                words = [w for w in rest.split() if not w.startswith("-")]
                append = re.search(r"(^|\s)(-a|--append)\b", rest) is not None
                verb: FileVerb = "appends to" if append else "writes"
                pre.files.append(FileEffect(verb, words[0] if words else None, "%%writefile"))
            else:
                pre.unknown.append(f"%%{name}: the cell is not Python; what it does is not "
                                   "analysed")  # fmt: skip
            return pre
    out: list[str] = []
    continued = False
    for line in lines:
        if continued:  # a special line continued with a backslash
            continued = line.rstrip().endswith("\\")
            out.append("")
            continue
        assign = _ASSIGN_SPECIAL.match(line)
        special = assign or _SPECIAL.match(line)
        stripped = line.strip()
        if stripped.endswith("?") and not stripped.startswith("#") and _is_help(stripped):
            out.append(_indent(line) + "pass")
            continue
        if special is None or (assign is None and special.group(2) == "%%"):
            out.append(line)
            continue
        if assign is not None:
            indent, target, mark, rest = assign.groups()
            replacement = f"{indent}{target} = None"
        else:
            indent, mark, rest = special.groups()
            replacement = f"{indent}pass"
        continued = line.rstrip().endswith("\\")
        if mark == "!":
            pre.outside.append(command_effect(rest.strip(), "!"))
        else:
            words = rest.strip().split(None, 1)
            if words:
                _magic(words[0], words[1] if len(words) > 1 else "", pre)
        out.append(replacement)
    pre.source = "\n".join(out)
    return pre


def _indent(line: str) -> str:
    return line[: len(line) - len(line.lstrip())]


def _is_help(stripped: str) -> bool:
    """``obj?`` / ``obj??`` / ``?obj``: IPython's help syntax, not Python."""
    body = stripped.rstrip("?").lstrip("?")
    return bool(re.fullmatch(r"[A-Za-z_][\w.]*\*?", body))
