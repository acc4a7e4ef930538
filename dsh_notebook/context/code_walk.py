"""The walk over a card's code: bindings at module scope, calls everywhere (``ast`` only).

:class:`Walker` visits a parsed module once, in the code's order, against the person's namespace
(read by key only): names bound at module scope (assignments, ``for``/``with`` targets, imports,
``def``/``class``, ``:=``, ``except … as``, ``match`` captures; in functions the code defines only
``global`` names), names deleted, objects mutated in place, and every call, matched against the
tables of :mod:`.effects`. :func:`~.consequences.analyse` builds the result from its findings.
"""

from __future__ import annotations

import ast
import builtins
import os
import re
import types
from collections.abc import Iterable, Mapping
from typing import Any

from .code_facts import (
    _LEAVES,
    _OPERATORS,
    _dotted,
    _immutable_holder,
    _keyword,
    _local_names,
    _looks_like_path,
    _mutable,
    _own_callable,
    _own_object,
    _path_keyword,
    _root_name,
    _shell_call,
)
from .effects import (
    DYNAMIC_FUNCTIONS,
    FILE_FUNCTIONS,
    FILE_METHODS,
    INPLACE_FUNCTIONS,
    MUTATING_METHODS,
    NETWORK_MODULES,
    PATH_ARG,
    PATH_METHODS,
    PROCESS_FUNCTIONS,
    PROCESS_PREFIXES,
    FileEffect,
    FileVerb,
    Mutation,
    OutsideEffect,
    command_effect,
    short,
    short_path,
    unparse,
)

__all__ = ["Walker"]


class Walker:
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
        """The code of ``node`` as written (one line, at most :data:`SHORT` characters)."""
        try:
            first, last = node.lineno - 1, node.end_lineno - 1  # type: ignore[attr-defined]
            start, end = node.col_offset, node.end_col_offset  # type: ignore[attr-defined]
            if last is None or end is None:
                return unparse(node)
            if first == last:
                return short(self._lines[first][start:end].decode(errors="replace"))
            pieces = [self._lines[first][start:], *self._lines[first + 1 : last]]
            pieces.append(self._lines[last][:end])
            return short(b"".join(pieces).decode(errors="replace"))
        except Exception:  # a node without positions
            return unparse(node)

    def call_text(self, node: ast.Call) -> str:
        """``clean(df)``: the call as written, short (arguments elided past the limit)."""
        text = self.src(node)
        return text if len(text) <= 48 else short(self.src(node.func) + "(…)", 48)

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
        if name in DYNAMIC_FUNCTIONS or name.removeprefix("builtins.") in DYNAMIC_FUNCTIONS:
            self.unknown.setdefault(DYNAMIC_FUNCTIONS[name.removeprefix("builtins.")])
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
        if name in INPLACE_FUNCTIONS:
            position = INPLACE_FUNCTIONS[name]
            if len(node.args) > position:
                root = _root_name(node.args[position])
                if root is not None:
                    self.mutate(root, short)
            return
        if name in FILE_FUNCTIONS:
            verb = FILE_FUNCTIONS[name]
            self.file(verb, self.path_of(node, PATH_ARG.get(name, 0)), short)
            if name == "urllib.request.urlretrieve":
                self.outside.setdefault(OutsideEffect("network", short))
            return
        if name in PROCESS_FUNCTIONS or name.startswith(PROCESS_PREFIXES):
            command = self.command_of(node)
            effect = command_effect(command, "") if command else None
            if effect is not None and effect.kind == "install":
                self.outside.setdefault(OutsideEffect("install", short))
            else:
                self.outside.setdefault(OutsideEffect("process", short))
            return
        if _shell_call(func):  # get_ipython().run_cell, .system, .run_line_magic…
            self.unknown.setdefault(f"{short}: runs IPython code or commands")
            return
        parts = name.split(".", 2)
        if parts[0] in NETWORK_MODULES or ".".join(parts[:2]) in NETWORK_MODULES:
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
        if attr in FILE_METHODS and (node.args or _path_keyword(node)):
            self.file(FILE_METHODS[attr], self.path_of(node, 0), short)
            return
        if attr in PATH_METHODS and self._is_path(func.value):
            verb = PATH_METHODS[attr]
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
        elif attr in MUTATING_METHODS:
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
            return short_path(value)
        if isinstance(node, ast.Call) and node.args and self._is_path_constructor(node.func):
            parts = [self.literal_path(a) for a in node.args]
            return None if None in parts else short_path("/".join(p for p in parts if p))
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
            left, right = self.literal_path(node.left), self.literal_path(node.right)
            return None if left is None or right is None else short_path(f"{left}/{right}")
        if isinstance(node, ast.Name) and node.id not in self.bound:
            value = self._value(node.id)
            if isinstance(value, str) and len(value) < 1000:
                return short_path(value)
            if isinstance(value, os.PathLike):
                try:
                    return short_path(str(os.fspath(value)))
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
