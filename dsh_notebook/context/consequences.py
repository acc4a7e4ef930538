"""What a piece of code will change, read from its text: the analysis behind a card's **Changes**.

:func:`analyse` reads Python code (IPython's ``!cmd``, ``%magic`` and ``%%cell`` lines included)
with :mod:`ast`, **never running it**, against a namespace (the kernel's ``user_ns``), and
returns a frozen :class:`Consequences`:

- names the code **rebinds** that exist now (and the value each holds now), names it
  **creates**, names it **deletes** (``del x``);
- existing objects it **mutates in place** as far as the code shows it: ``x[...] = …``,
  ``x.attr = …``, ``del x[...]``, augmented assignment of a mutable value, a call with
  ``inplace=True``, a mutating method (``append``, ``update``, ``pop``, ``sort``…), ``setattr``
  with a literal name, ``random.shuffle(x)``;
- **files** it writes, appends to, moves or deletes (``open(…, "w"/"a"/"x")``, ``to_csv`` and
  the other ``to_*`` writers, ``savefig``, ``np.save``, ``Path.write_text``, ``os.remove``,
  ``shutil.*``…), with the path when it is a literal (or a ``str``/``PathLike`` in the namespace);
- **processes, network and installs** (``subprocess``, ``os.system``, ``!cmd``, ``%pip``,
  ``requests``, ``urllib``, ``socket``, ``httpx``…);
- **cannot tell** where the code is dynamic: ``exec``/``eval``, ``globals()``, ``setattr`` with a
  computed name, star imports, magics it does not know, and calls into the person's own
  functions ("calls ``clean(df)``: may change df").

Guarantees:

- **Never runs the code and never raises** (for any ``Exception``): code that does not parse gives
  :attr:`Consequences.unparsed` (its line and message) and nothing else.
- **Reads the namespace only by key** (``in``, ``get``): no ``repr``, no property, no iteration of
  a value. Describing the values it names is :mod:`.changes_text`'s job, bounded in time there.
- **Static means approximate.** What the code shows is reported; aliasing (``b = a;
  b.append(1)``), effects inside library calls and code in function bodies that never runs are
  not. Effects inside functions the code defines count as the code's (they are usually called).
- **Bounded work**: linear in the size of the code's syntax tree; ≤ 5 ms for 200 lines
  (``bench/consequences.py``).
"""

from __future__ import annotations

import ast
import builtins
import os
import re
import types
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

__all__ = [
    "Consequences",
    "FileEffect",
    "Mutation",
    "OutsideEffect",
    "analyse",
]

FileVerb = Literal["writes", "appends to", "creates", "deletes", "moves", "copies"]
OutsideKind = Literal["process", "network", "install"]


@dataclass(frozen=True)
class Mutation:
    """An existing object changed in place: its name and how (``x[...] = …``, ``.append()``)."""

    name: str
    how: str


@dataclass(frozen=True)
class FileEffect:
    """A file touched: the verb, the path (``None``: not a literal) and the call that does it."""

    verb: FileVerb
    path: str | None
    via: str


@dataclass(frozen=True)
class OutsideEffect:
    """A process, a network request or an install, and what it runs or reaches."""

    kind: OutsideKind
    what: str


@dataclass(frozen=True)
class Consequences:
    """What :func:`analyse` found, in the order the code does it; each name once per section."""

    rebinds: tuple[str, ...] = ()
    """Names that exist in the namespace now and that the code binds again."""
    creates: tuple[str, ...] = ()
    """Names the code binds that do not exist now."""
    mutates: tuple[Mutation, ...] = ()
    """Existing objects changed in place (first way shown per name)."""
    deletes: tuple[str, ...] = ()
    """Existing names the code deletes (``del x``)."""
    files: tuple[FileEffect, ...] = ()
    outside: tuple[OutsideEffect, ...] = ()
    unknown: tuple[str, ...] = ()
    """Why the analysis cannot tell all the code does ("exec(…) runs code built at run time")."""
    unparsed: str | None = None
    """The code does not parse: where and why (then every other section is empty)."""

    @property
    def touched(self) -> tuple[str, ...]:
        """Existing names whose values the code rebinds, mutates or deletes (each once)."""
        names = [*self.rebinds, *(m.name for m in self.mutates), *self.deletes]
        return tuple(dict.fromkeys(names))

    @property
    def empty(self) -> bool:
        """Nothing found (and the code parsed)."""
        return self.unparsed is None and not any(
            (self.rebinds, self.creates, self.mutates, self.deletes, self.files, self.outside,
             self.unknown)
        )  # fmt: skip


# --- what is known about calls --------------------------------------------------------------

_MUTATING_METHODS = frozenset(
    {
        "append", "extend", "insert", "remove", "pop", "clear", "sort", "reverse",  # list
        "update", "popitem", "setdefault",  # dict
        "add", "discard", "difference_update", "intersection_update",  # set
        "symmetric_difference_update",
        "fill", "resize", "put", "itemset", "setflags", "partition",  # ndarray
        "rename_axis_inplace", "set_axis_inplace",
    }
)  # fmt: skip
"""Methods that change their receiver (lists, dicts, sets, DataFrames, Series, ndarrays)."""

_INPLACE_FUNCTIONS = {
    "random.shuffle": 0, "numpy.random.shuffle": 0, "numpy.copyto": 0, "numpy.put": 0,
    "numpy.place": 0, "numpy.fill_diagonal": 0, "numpy.random.Generator.shuffle": 0,
}  # fmt: skip
"""Functions that change the argument at this position in place."""

_FILE_METHODS: dict[str, FileVerb] = {
    "to_csv": "writes", "to_parquet": "writes", "to_excel": "writes", "to_json": "writes",
    "to_pickle": "writes", "to_feather": "writes", "to_hdf": "writes", "to_stata": "writes",
    "to_orc": "writes", "to_xml": "writes", "to_html": "writes", "to_latex": "writes",
    "to_markdown": "writes", "to_netcdf": "writes", "to_zarr": "writes", "to_file": "writes",
    "savefig": "writes", "tofile": "writes", "write_csv": "writes", "write_parquet": "writes",
    "write_json": "writes", "write_ndjson": "writes", "write_ipc": "writes",
    "write_excel": "writes", "write_image": "writes", "write_html": "writes",
}  # fmt: skip
"""Methods that write the file named by their first argument (or ``path``/``path_or_buf``…)."""

_PATH_METHODS: dict[str, FileVerb] = {
    "write_text": "writes", "write_bytes": "writes", "unlink": "deletes", "rmdir": "deletes",
    "rename": "moves", "replace": "moves", "touch": "creates", "mkdir": "creates",
    "symlink_to": "creates", "hardlink_to": "creates",
}  # fmt: skip
"""``pathlib.Path`` methods that act on the receiver's path."""

_FILE_FUNCTIONS: dict[str, FileVerb] = {
    "os.remove": "deletes", "os.unlink": "deletes", "os.rmdir": "deletes",
    "os.removedirs": "deletes", "os.rename": "moves", "os.renames": "moves",
    "os.replace": "moves", "os.makedirs": "creates", "os.mkdir": "creates",
    "os.truncate": "writes", "os.chmod": "writes", "os.symlink": "creates", "os.link": "creates",
    "shutil.rmtree": "deletes", "shutil.move": "moves", "shutil.copy": "copies",
    "shutil.copy2": "copies", "shutil.copyfile": "copies", "shutil.copytree": "copies",
    "shutil.copymode": "writes", "shutil.copystat": "writes", "shutil.make_archive": "creates",
    "shutil.unpack_archive": "creates", "shutil.chown": "writes",
    "numpy.save": "writes", "numpy.savez": "writes", "numpy.savez_compressed": "writes",
    "numpy.savetxt": "writes", "joblib.dump": "writes", "torch.save": "writes",
    "matplotlib.pyplot.savefig": "writes", "urllib.request.urlretrieve": "writes",
    "tempfile.mkstemp": "creates", "tempfile.mkdtemp": "creates",
}  # fmt: skip
"""Functions that touch the file named by an argument (:data:`_PATH_ARG` says which)."""

_PATH_ARG = {
    "joblib.dump": 1, "torch.save": 1, "urllib.request.urlretrieve": 1, "os.symlink": 1,
    "os.link": 1,
}  # fmt: skip
"""Where the path is when it is not the first argument (the file written, for a move its source)."""

_PROCESS_FUNCTIONS = frozenset(
    {
        "subprocess.run", "subprocess.call", "subprocess.check_call", "subprocess.check_output",
        "subprocess.Popen", "subprocess.getoutput", "subprocess.getstatusoutput", "os.system",
        "os.popen", "os.startfile", "os.kill", "os.killpg", "os.fork", "os.forkpty",
        "asyncio.create_subprocess_exec", "asyncio.create_subprocess_shell",
        "multiprocessing.Process", "multiprocessing.Pool", "pty.spawn", "webbrowser.open",
    }
)  # fmt: skip
_PROCESS_PREFIXES = ("os.exec", "os.spawn", "os.posix_spawn")

_NETWORK_MODULES = frozenset({
    "requests", "httpx", "urllib.request", "urllib3", "socket", "http.client", "aiohttp",
    "ftplib", "smtplib", "poplib", "imaplib", "telnetlib", "paramiko", "websocket",
    "websockets", "boto3", "xmlrpc.client",
})  # fmt: skip
"""Calls into these modules reach the network (``requests.get``, ``socket.socket``…)."""

_DYNAMIC_FUNCTIONS = {
    "exec": "exec(…) runs code built at run time",
    "eval": "eval(…) runs code built at run time",
    "compile": "compile(…) builds code to run later",
    "globals": "globals() gives the code every name of the notebook",
    "locals": "locals() gives the code every name of the notebook",
    "vars": "vars() gives the code names it can change",
    "__import__": "__import__(…) imports a module named at run time",
    "importlib.reload": "importlib.reload(…) runs a module's code again",
    "runpy.run_path": "runpy runs another file's code",
    "runpy.run_module": "runpy runs another module's code",
}  # fmt: skip

_QUIET_MAGICS = frozenset(
    {
        "matplotlib", "time", "timeit", "who", "whos", "who_ls", "pwd", "history", "pinfo",
        "pinfo2", "pdoc", "psource", "pfile", "lsmagic", "magic", "precision", "page",
        "load_ext", "reload_ext", "config", "xmode", "debug", "prun", "capture", "pprint",
        "notebook", "doctest_mode", "colors", "env_list", "ls", "cat", "less", "more", "dsh",
    }
)  # fmt: skip
"""Line magics that change nothing the analysis reports (``%ls`` lists, ``%time`` times)."""
_PYTHON_BODY_CELL_MAGICS = frozenset({"time", "timeit", "capture", "prun", "debug"})
"""Cell magics whose body is Python that runs in the namespace: analysed as such."""
_PROCESS_CELL_MAGICS = frozenset(
    {
        "bash",
        "sh",
        "script",
        "system",
        "perl",
        "ruby",
        "python2",
        "python3",
        "pypy",
        "cmd",
        "powershell",
    }
)

_OS_MODULES = {"posix": "os", "nt": "os", "posixpath": "os.path", "ntpath": "os.path"}
_INSTALL = re.compile(r"\b(?:pip3?|uv\s+pip|conda|mamba|micromamba|apt(?:-get)?|npm|brew)\s+"
                      r"(?:-\S+\s+)*install\b")  # fmt: skip
_SHORT = 80
"""Longest quoted piece of code, path or command."""


def _short(text: str, limit: int = _SHORT) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _unparse(node: ast.AST) -> str:
    try:
        return _short(ast.unparse(node))
    except Exception:  # pragma: no cover - unparse of a parsed tree
        return "…"


# --- IPython syntax: a line pre-pass ---------------------------------------------------------

_ASSIGN_SPECIAL = re.compile(r"^(\s*)([A-Za-z_][\w.]*(?:\s*,\s*[A-Za-z_]\w*)*)\s*=\s*([!%])(.*)$")
_SPECIAL = re.compile(r"^(\s*)(!|%%?)(.*)$")


@dataclass
class _Prepass:
    source: str
    outside: list[OutsideEffect] = field(default_factory=list)
    unknown: list[str] = field(default_factory=list)
    files: list[FileEffect] = field(default_factory=list)


def _command_effect(command: str, via: str) -> OutsideEffect:
    if _INSTALL.search(command):
        return OutsideEffect("install", f"{via}{_short(command)}")
    return OutsideEffect("process", f"{via}{_short(command)}")


def _magic(name: str, rest: str, pre: _Prepass) -> None:
    """One line magic ``%name rest``: what it does that the analysis reports."""
    if name in ("pip", "conda", "mamba", "micromamba", "uv"):
        if re.search(r"\binstall\b|\buninstall\b|\bremove\b|\bupdate\b|\bupgrade\b", rest):
            pre.outside.append(OutsideEffect("install", _short(f"%{name} {rest}")))
    elif name in ("system", "sx", "sc"):
        pre.outside.append(_command_effect(rest, "!"))
    elif name in ("cd", "pushd", "popd"):
        pre.outside.append(OutsideEffect("process", _short(f"%{name} {rest}: changes the working "
                                                           "directory")))  # fmt: skip
    elif name in ("env", "set_env"):
        if "=" in rest or (name == "set_env" and rest.strip()):
            pre.unknown.append(_short(f"%{name} {rest}") + ": sets an environment variable")
    elif name not in _QUIET_MAGICS:
        pre.unknown.append(f"%{name}: a magic; what it changes is not analysed")


def _prepass(code: str) -> _Prepass:
    """``code`` with IPython's special lines made Python (each becomes ``pass``, or a binding
    of its target for ``x = !ls``), and the effects those lines have. A ``%%`` first line
    either hands its body over (``%%time``: the body is Python) or replaces it (``%%bash``)."""
    pre = _Prepass("")
    lines = code.splitlines()
    first = next((i for i, line in enumerate(lines) if line.strip()), None)
    if first is not None and lines[first].lstrip().startswith("%%"):
        head = lines[first].strip()[2:].split(None, 1)
        name, rest = (head[0] if head else ""), (head[1] if len(head) > 1 else "")
        body = lines[first + 1 :]
        if name in _PYTHON_BODY_CELL_MAGICS:
            lines = [""] * (first + 1) + body
        else:
            if name in _PROCESS_CELL_MAGICS:
                command = " ".join(line.strip() for line in body if line.strip())
                pre.outside.append(_command_effect(command, f"%%{name}: "))
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
            pre.outside.append(_command_effect(rest.strip(), "!"))
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


# --- the walk ---------------------------------------------------------------------------------


class _Walker:
    """One pass over the module: bindings at module scope, calls everywhere."""

    def __init__(self, namespace: Mapping[str, Any], source: str) -> None:
        self.ns = namespace
        self._lines = [line.encode() for line in source.splitlines(keepends=True)]
        self.aliases: dict[str, str] = {}  # local name -> dotted module/function path
        self.bound: dict[str, None] = {}  # bound by the code so far (module scope), in order
        self.rebinds: dict[str, None] = {}
        self.creates: dict[str, None] = {}
        self.deletes: dict[str, None] = {}
        self.mutates: dict[str, Mutation] = {}
        self.files: dict[tuple[str, str | None], FileEffect] = {}
        self.outside: dict[OutsideEffect, None] = {}
        self.unknown: dict[str, None] = {}
        self.defined: set[str] = set()  # functions and classes the code defines
        self.globals_in: list[set[str]] = []
        self._locals: set[str] = set()  # names local to the function being walked

    def src(self, node: ast.AST) -> str:
        """The code of ``node`` as written (one line, at most :data:`_SHORT` characters)."""
        try:
            first, last = node.lineno - 1, node.end_lineno - 1  # type: ignore[attr-defined]
            start, end = node.col_offset, node.end_col_offset  # type: ignore[attr-defined]
            if last is None or end is None:
                return _unparse(node)
            if first == last:
                return _short(self._lines[first][start:end].decode(errors="replace"))
            pieces = [self._lines[first][start:], *self._lines[first + 1 : last]]
            pieces.append(self._lines[last][:end])
            return _short(b"".join(pieces).decode(errors="replace"))
        except Exception:  # a node without positions
            return _unparse(node)

    def call_text(self, node: ast.Call) -> str:
        """``clean(df)``: the call as written, short (arguments elided past the limit)."""
        text = self.src(node)
        return text if len(text) <= 48 else _short(self.src(node.func) + "(…)", 48)

    # names -----------------------------------------------------------------------------------

    def _exists(self, name: str) -> bool:
        try:
            return name in self.ns
        except Exception:
            return False

    def _value(self, name: str) -> Any:
        try:
            return self.ns.get(name)
        except Exception:
            return None

    def existing(self, name: str) -> bool:
        """A name of the person's namespace the code has not bound itself before this point."""
        return name not in self.bound and self._exists(name)

    def bind(self, name: str) -> None:
        if self.globals_in and name not in self.globals_in[-1]:
            return  # a local of a function the code defines
        if name not in self.bound:
            if self._exists(name):
                self.rebinds.setdefault(name)
            else:
                self.creates.setdefault(name)
        self.bound.setdefault(name)

    def mutate(self, name: str, how: str) -> None:
        if self.globals_in and name in self._locals and name not in self.globals_in[-1]:
            return  # a function's own local (a parameter, say), not the notebook's value
        if (
            self.existing(name)
            and name not in self.mutates
            and not _immutable_holder(self._value(name))
        ):
            self.mutates[name] = Mutation(name, how)

    def bind_target(self, target: ast.expr, how: str = "") -> None:
        if isinstance(target, ast.Name):
            self.bind(target.id)
        elif isinstance(target, (ast.Tuple, ast.List)):
            for element in target.elts:
                self.bind_target(element, how)
        elif isinstance(target, ast.Starred):
            self.bind_target(target.value, how)
        elif isinstance(target, (ast.Subscript, ast.Attribute)):
            root = _root_name(target)
            if root is not None and self._module_scope_name(root):
                piece = "[…] = …" if isinstance(target, ast.Subscript) else f".{target.attr} = …"
                self.mutate(root, how or f"{self.src(target.value)}{piece}")

    def _module_scope_name(self, name: str) -> bool:
        return not self.globals_in or name in self.globals_in[-1] or name not in self._locals

    # statements ------------------------------------------------------------------------------

    def statements(self, body: Iterable[ast.stmt]) -> None:
        for statement in body:
            self.statement(statement)

    def statement(self, node: ast.stmt) -> None:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            for decorator in node.decorator_list:
                self.expression(decorator)
            if not isinstance(node, ast.ClassDef):
                for default in [*node.args.defaults, *node.args.kw_defaults]:
                    if default is not None:
                        self.expression(default)
            self.bind(node.name)
            self.defined.add(node.name)
            self._body_of_definition(node)
            return
        if isinstance(node, ast.Assign):
            self.expression(node.value)
            for target in node.targets:
                self.target_expressions(target)
                self.bind_target(target)
        elif isinstance(node, ast.AnnAssign):
            if node.value is not None:
                self.expression(node.value)
                self.target_expressions(node.target)
                self.bind_target(node.target)
        elif isinstance(node, ast.AugAssign):
            self.expression(node.value)
            self.target_expressions(node.target)
            self.augmented(node)
        elif isinstance(node, ast.Delete):
            for target in node.targets:
                self.delete(target)
        elif isinstance(node, (ast.For, ast.AsyncFor)):
            self.expression(node.iter)
            self.bind_target(node.target)
            self.statements(node.body)
            self.statements(node.orelse)
        elif isinstance(node, (ast.With, ast.AsyncWith)):
            for item in node.items:
                self.expression(item.context_expr)
                if item.optional_vars is not None:
                    self.bind_target(item.optional_vars)
            self.statements(node.body)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                local = alias.asname or alias.name.split(".")[0]
                self.imported(local, alias.name if alias.asname else local)
        elif isinstance(node, ast.ImportFrom):
            module = "." * node.level + (node.module or "")
            for alias in node.names:
                if alias.name == "*":
                    self.unknown.setdefault(
                        f"from {module} import *: may rebind any name of the notebook"
                    )
                    continue
                self.imported(alias.asname or alias.name, f"{module}.{alias.name}")
        elif isinstance(node, ast.Global):
            if self.globals_in:
                self.globals_in[-1].update(node.names)
        elif isinstance(node, ast.Try) or type(node).__name__ == "TryStar":
            self.statements(node.body)  # type: ignore[attr-defined]
            for handler in node.handlers:  # type: ignore[attr-defined]
                if handler.type is not None:
                    self.expression(handler.type)
                if handler.name and not self.globals_in:
                    self.bind(handler.name)
                self.statements(handler.body)
            self.statements(node.orelse)  # type: ignore[attr-defined]
            self.statements(node.finalbody)  # type: ignore[attr-defined]
        elif isinstance(node, ast.Match):
            self.expression(node.subject)
            for case in node.cases:
                for child in ast.walk(case.pattern):
                    name = getattr(child, "name", None)
                    if isinstance(name, str):
                        self.bind(name)
                if case.guard is not None:
                    self.expression(case.guard)
                self.statements(case.body)
        else:  # if, while, expression, return, raise, assert…: expressions and bodies
            for child in ast.iter_child_nodes(node):
                if isinstance(child, ast.stmt):
                    self.statement(child)
                elif isinstance(child, ast.expr):
                    self.expression(child)

    def _body_of_definition(
        self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef
    ) -> None:
        """A function's or class's body: its calls count (the code usually calls what it
        defines); only names it declares ``global`` are the notebook's."""
        saved_bound = self.bound
        self.globals_in.append(set())
        previous_locals = self._locals
        self._locals = _local_names(node)
        try:
            self.statements(node.body)
        finally:
            self.globals_in.pop()
            self._locals = previous_locals
            self.bound = saved_bound

    def imported(self, local: str, target: str) -> None:
        self.aliases[local] = target
        value = self._value(local) if local not in self.bound else None
        if isinstance(value, types.ModuleType) and value.__name__ == target:
            self.bound.setdefault(local)  # the same module again: nothing changes
            return
        self.bind(local)

    def augmented(self, node: ast.AugAssign) -> None:
        target = node.target
        operator = _OPERATORS.get(type(node.op), "?=")
        if isinstance(target, ast.Name):
            name = target.id
            if self.existing(name) and _mutable(self._value(name)) and not self.globals_in:
                self.mutate(name, f"{name} {operator} …")
                self.bound.setdefault(name)
            else:
                self.bind(name)
        else:
            self.bind_target(target, f"{self.src(target)} {operator} …")

    def delete(self, target: ast.expr) -> None:
        if isinstance(target, ast.Name):
            name = target.id
            if self.globals_in and name not in self.globals_in[-1]:
                return
            if self.existing(name):
                self.deletes.setdefault(name)
            self.bound.pop(name, None)
        elif isinstance(target, (ast.Tuple, ast.List)):
            for element in target.elts:
                self.delete(element)
        else:
            self.target_expressions(target)
            root = _root_name(target)
            if root is not None:
                self.mutate(root, f"del {self.src(target)}")

    def target_expressions(self, target: ast.expr) -> None:
        """The expressions inside an assignment target (``x[f(y)]``: the call ``f(y)``)."""
        if isinstance(target, ast.Subscript):
            self.expression(target.value)
            self.expression(target.slice)
        elif isinstance(target, ast.Attribute):
            self.expression(target.value)
        elif isinstance(target, (ast.Tuple, ast.List)):
            for element in target.elts:
                self.target_expressions(element)

    # expressions -----------------------------------------------------------------------------

    def expression(self, node: ast.expr) -> None:
        """Every call and ``:=`` inside ``node`` (names and constants are not entered)."""
        todo: list[ast.AST] = [node]
        while todo:
            child = todo.pop()
            if isinstance(child, _LEAVES):
                continue
            if isinstance(child, ast.Call):
                self.call(child)
            elif isinstance(child, ast.NamedExpr):
                self.bind_target(child.target)
            for field_name in child._fields:
                value = getattr(child, field_name, None)
                if isinstance(value, ast.AST):
                    todo.append(value)
                elif isinstance(value, list):
                    todo.extend(v for v in value if isinstance(v, ast.AST))

    def resolve(self, node: ast.expr) -> str | None:
        """The dotted name a callee stands for (``sp.run`` → ``subprocess.run``), or None."""
        if isinstance(node, ast.Name):
            if node.id in self.aliases:
                return self.aliases[node.id]
            if node.id in self.bound:
                return None
            value = self._value(node.id)
            if value is None:
                return node.id if hasattr(builtins, node.id) else None
            return _dotted(value) or node.id
        if isinstance(node, ast.Attribute):
            base = self.resolve(node.value)
            return f"{base}.{node.attr}" if base else None
        return None

    def call(self, node: ast.Call) -> None:
        func = node.func
        name = self.resolve(func) or ""
        short = self.call_text(node)
        if name in _DYNAMIC_FUNCTIONS or name.removeprefix("builtins.") in _DYNAMIC_FUNCTIONS:
            self.unknown.setdefault(_DYNAMIC_FUNCTIONS[name.removeprefix("builtins.")])
            return
        if name in ("open", "builtins.open", "io.open", "codecs.open", "os.open"):
            self.opened(node, short)
            return
        if name in ("setattr", "builtins.setattr", "delattr", "builtins.delattr"):
            if node.args and len(node.args) >= 2:
                key = node.args[1]
                root = _root_name(node.args[0])
                if isinstance(key, ast.Constant) and isinstance(key.value, str):
                    if root is not None:
                        self.mutate(root, short)
                else:
                    self.unknown.setdefault(f"{short}: sets an attribute named at run time")
            return
        if name in _INPLACE_FUNCTIONS:
            position = _INPLACE_FUNCTIONS[name]
            if len(node.args) > position:
                root = _root_name(node.args[position])
                if root is not None:
                    self.mutate(root, short)
            return
        if name in _FILE_FUNCTIONS:
            verb = _FILE_FUNCTIONS[name]
            self.file(verb, self.path_of(node, _PATH_ARG.get(name, 0)), short)
            if name == "urllib.request.urlretrieve":
                self.outside.setdefault(OutsideEffect("network", short))
            return
        if name in _PROCESS_FUNCTIONS or name.startswith(_PROCESS_PREFIXES):
            command = self.command_of(node)
            effect = _command_effect(command, "") if command else None
            if effect is not None and effect.kind == "install":
                self.outside.setdefault(OutsideEffect("install", short))
            else:
                self.outside.setdefault(OutsideEffect("process", short))
            return
        if _shell_call(func):  # get_ipython().run_cell, .system, .run_line_magic…
            self.unknown.setdefault(f"{short}: runs IPython code or commands")
            return
        parts = name.split(".", 2)
        if parts[0] in _NETWORK_MODULES or ".".join(parts[:2]) in _NETWORK_MODULES:
            self.outside.setdefault(OutsideEffect("network", short))
            return
        if name.startswith(("pandas.read_", "polars.read_")) and self._url_argument(node):
            self.outside.setdefault(OutsideEffect("network", short))
            return
        if isinstance(func, ast.Attribute):
            self.method(node, func, short)
            return
        if isinstance(func, ast.Name):
            self.own_function(node, func.id, short)

    def _url_argument(self, node: ast.Call) -> bool:
        path = self.path_of(node, 0)
        return bool(path and re.match(r"(?i)(https?|ftp|s3|gs)://", path))

    def method(self, node: ast.Call, func: ast.Attribute, short: str) -> None:
        attr = func.attr
        root = _root_name(func.value)
        if attr in _FILE_METHODS and (node.args or _path_keyword(node)):
            self.file(_FILE_METHODS[attr], self.path_of(node, 0), short)
            return
        if attr in _PATH_METHODS and self._is_path(func.value):
            verb = _PATH_METHODS[attr]
            self.file(verb, self.literal_path(func.value), short)
            return
        if attr == "open" and self._is_path(func.value):
            self.opened(node, short, path=self.literal_path(func.value), mode_at=0)
            return
        if attr == "save" and node.args:
            path = self.path_of(node, 0)
            if path is not None or _looks_like_path(node.args[0]):
                self.file("writes", path, short)
            return
        if attr == "to_sql":
            self.outside.setdefault(OutsideEffect("network", f"{short}: writes to a database"))
        inplace = any(
            k.arg == "inplace" and not (isinstance(k.value, ast.Constant) and not k.value.value)
            for k in node.keywords
        )
        if root is None:
            return
        if inplace:
            self.mutate(root, f".{attr}(…, inplace=True)")
        elif attr in _MUTATING_METHODS:
            self.mutate(root, f".{attr}()")
        elif self.existing(root) and _own_object(self._value(root)):
            self.unknown.setdefault(f"calls {short}: may change {root}")

    def own_function(self, node: ast.Call, name: str, short: str) -> None:
        """A call of the person's own function (defined in the notebook or in this code): it
        may change any mutable value it is given, and more."""
        own = name in self.defined or (name not in self.bound and _own_callable(self._value(name)))
        if not own:
            return
        given = [_root_name(arg) for arg in [*node.args, *(k.value for k in node.keywords)]]
        changed = [
            n for n in dict.fromkeys(g for g in given if g)
            if self.existing(n) and _mutable(self._value(n))
        ]  # fmt: skip
        if changed:
            self.unknown.setdefault(f"calls {short}: may change {', '.join(changed)}")
        elif name not in self.defined:
            self.unknown.setdefault(f"calls {short}: what it changes is not analysed")

    # files and commands ----------------------------------------------------------------------

    def opened(
        self, node: ast.Call, short: str, *, path: str | None = None, mode_at: int = 1
    ) -> None:
        mode_node = node.args[mode_at] if len(node.args) > mode_at else _keyword(node, "mode")
        if mode_node is None:
            return  # reading
        if not (isinstance(mode_node, ast.Constant) and isinstance(mode_node.value, str)):
            self.unknown.setdefault(f"{short}: opens a file in a mode chosen at run time")
            return
        mode = mode_node.value
        verb: FileVerb | None = (
            "writes" if "w" in mode else "appends to" if "a" in mode
            else "creates" if "x" in mode else "writes" if "+" in mode else None
        )  # fmt: skip
        if verb is None:
            return
        if path is None and mode_at == 1:
            path = self.path_of(node, 0, keyword="file")
        self.file(verb, path, short)

    def file(self, verb: FileVerb, path: str | None, via: str) -> None:
        key = (verb, path if path is not None else via)
        self.files.setdefault(key, FileEffect(verb, path, via))

    def path_of(self, node: ast.Call, position: int, keyword: str | None = None) -> str | None:
        arg: ast.expr | None = node.args[position] if len(node.args) > position else None
        if arg is None:
            arg = _path_keyword(node) if keyword is None else _keyword(node, keyword)
        return None if arg is None else self.literal_path(arg)

    def literal_path(self, node: ast.expr) -> str | None:
        """A path the code names literally: a string, ``Path("…")``, ``a / "b"`` of such, or a
        name holding a ``str`` or ``PathLike`` in the namespace."""
        if isinstance(node, ast.Constant) and isinstance(node.value, (str, bytes)):
            value = (
                node.value if isinstance(node.value, str) else node.value.decode(errors="replace")
            )
            return _short(value)
        if isinstance(node, ast.Call) and node.args and self._is_path_constructor(node.func):
            parts = [self.literal_path(a) for a in node.args]
            return None if None in parts else _short("/".join(p for p in parts if p))
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
            left, right = self.literal_path(node.left), self.literal_path(node.right)
            return None if left is None or right is None else _short(f"{left}/{right}")
        if isinstance(node, ast.Name) and node.id not in self.bound:
            value = self._value(node.id)
            if isinstance(value, str) and len(value) < 1000:
                return _short(value)
            if isinstance(value, os.PathLike):
                try:
                    return _short(str(os.fspath(value)))
                except Exception:
                    return None
        return None

    def _is_path_constructor(self, func: ast.expr) -> bool:
        name = self.resolve(func) or ""
        return name.startswith("pathlib.") or name in ("Path", "PurePath", "PosixPath")

    def _is_path(self, node: ast.expr) -> bool:
        if isinstance(node, ast.Call):
            return self._is_path_constructor(node.func)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
            return self._is_path(node.left)
        if isinstance(node, ast.Name) and node.id not in self.bound:
            return isinstance(self._value(node.id), os.PathLike)
        return isinstance(node, ast.Name) and node.id in self.bound  # assume a path variable

    def command_of(self, node: ast.Call) -> str:
        if not node.args:
            return ""
        arg = node.args[0]
        if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
            return arg.value
        if isinstance(arg, (ast.List, ast.Tuple)):
            return " ".join(
                e.value if isinstance(e, ast.Constant) and isinstance(e.value, str) else "…"
                for e in arg.elts
            )
        return self.src(arg)


_LEAVES = (ast.Name, ast.Constant, ast.expr_context, ast.operator, ast.cmpop, ast.unaryop,
           ast.boolop)  # fmt: skip

_OPERATORS = {
    ast.Add: "+=", ast.Sub: "-=", ast.Mult: "*=", ast.Div: "/=", ast.FloorDiv: "//=",
    ast.Mod: "%=", ast.Pow: "**=", ast.BitOr: "|=", ast.BitAnd: "&=", ast.BitXor: "^=",
    ast.LShift: "<<=", ast.RShift: ">>=", ast.MatMult: "@=",
}  # fmt: skip


def _root_name(node: ast.expr) -> str | None:
    """``df`` for ``df.loc[0, "a"]``, ``a.b.c`` or ``a[0][1]``; None for anything else."""
    while isinstance(node, (ast.Subscript, ast.Attribute, ast.Starred)):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def _shell_call(func: ast.expr) -> bool:
    """``get_ipython().anything(…)``: the shell runs code, commands or magics."""
    while isinstance(func, ast.Attribute):
        func = func.value
    return (
        isinstance(func, ast.Call)
        and isinstance(func.func, ast.Name)
        and func.func.id == "get_ipython"
    )


def _keyword(node: ast.Call, name: str) -> ast.expr | None:
    return next((k.value for k in node.keywords if k.arg == name), None)


_PATH_KEYWORDS = ("path", "path_or_buf", "excel_writer", "fname", "file", "filename", "buf",
                  "path_or_buffer", "file_path", "filepath", "dst", "target")  # fmt: skip


def _path_keyword(node: ast.Call) -> ast.expr | None:
    return next((k.value for k in node.keywords if k.arg in _PATH_KEYWORDS), None)


def _looks_like_path(node: ast.expr) -> bool:
    return isinstance(node, ast.JoinedStr) or (
        isinstance(node, ast.Constant) and isinstance(node.value, str)
    )


def _local_names(node: ast.AST) -> set[str]:
    """Names a function binds locally (so ``x[0] = 1`` on a local is not the notebook's)."""
    names: set[str] = set()
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        arguments = node.args
        for arg in [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs,
                    arguments.vararg, arguments.kwarg]:  # fmt: skip
            if arg is not None:
                names.add(arg.arg)
    for child in ast.walk(node):
        if isinstance(child, ast.Name) and isinstance(child.ctx, ast.Store):
            names.add(child.id)
    return names


def _dotted(value: Any) -> str | None:
    """``subprocess.run`` for that function, ``os`` for the module, ``None`` when unknown."""
    try:
        if isinstance(value, types.ModuleType):
            return _OS_MODULES.get(value.__name__, value.__name__)
        module = getattr(value, "__module__", None)
        qualname = getattr(value, "__qualname__", None)
        if isinstance(value, type) and isinstance(module, str) and isinstance(qualname, str):
            return f"{_OS_MODULES.get(module, module)}.{qualname}"
        if callable(value) and isinstance(module, str) and isinstance(qualname, str):
            module = _OS_MODULES.get(module, module)
            if module == "builtins":
                return qualname
            return f"{module}.{qualname}"
    except Exception:
        return None
    return None


def _is_mains(value: Any) -> bool:
    try:
        return getattr(value, "__module__", None) == "__main__"
    except Exception:
        return False


def _own_callable(value: Any) -> bool:
    """A function or class the person defined in the notebook."""
    return isinstance(value, (types.FunctionType, type)) and _is_mains(value)


def _own_object(value: Any) -> bool:
    """An instance of a class the person defined in the notebook."""
    try:
        return _is_mains(type(value)) and not isinstance(value, type)
    except Exception:
        return False


_IMMUTABLE = (int, float, complex, str, bytes, bool, tuple, frozenset, type(None), range)


def _mutable(value: Any) -> bool:
    """Whether a value can change in place (anything but the immutable builtins, modules,
    functions and classes)."""
    return (
        not isinstance(value, (*_IMMUTABLE, types.ModuleType, type)) and not callable(value)
    ) or _own_object(value)


def _immutable_holder(value: Any) -> bool:
    return isinstance(value, _IMMUTABLE)


def analyse(code: str, namespace: Mapping[str, Any]) -> Consequences:
    """What ``code`` will change in ``namespace`` and outside it (module docstring). Never
    raises; never runs ``code``."""
    try:
        return _analyse(code, namespace)
    except Exception as exc:  # a bug of ours must not cost the card
        return Consequences(unknown=(f"the analysis failed ({type(exc).__name__})",))


def _analyse(code: str, namespace: Mapping[str, Any]) -> Consequences:
    pre = _prepass(code)
    try:
        tree = ast.parse(pre.source, "<code>", "exec")
    except SyntaxError as exc:
        where = f"line {exc.lineno}: " if exc.lineno else ""
        return Consequences(unparsed=_short(f"{where}{exc.msg}", 120))
    except (ValueError, MemoryError, RecursionError) as exc:
        return Consequences(unparsed=_short(f"{type(exc).__name__}: {exc}", 120))
    walker = _Walker(namespace, pre.source)
    walker.statements(tree.body)
    return Consequences(
        rebinds=tuple(walker.rebinds),
        creates=tuple(walker.creates),
        mutates=tuple(m for name, m in walker.mutates.items() if name not in walker.deletes),
        deletes=tuple(walker.deletes),
        files=(*pre.files, *walker.files.values()),
        outside=(*dict.fromkeys(pre.outside), *walker.outside),
        unknown=(*dict.fromkeys(pre.unknown), *walker.unknown),
    )
