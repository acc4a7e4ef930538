"""What the walk over a card's code asks of names and values (:mod:`.code_walk`'s helpers).

The root name of an expression, whether a call runs a shell, a call's path argument, the names a
definition binds locally, and what a value in the namespace is: the person's own function or
object, mutable or not, a module's dotted name.
"""

from __future__ import annotations

import ast
import types
from typing import Any

from .effects import OS_MODULES

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
            return OS_MODULES.get(value.__name__, value.__name__)
        module = getattr(value, "__module__", None)
        qualname = getattr(value, "__qualname__", None)
        if isinstance(value, type) and isinstance(module, str) and isinstance(qualname, str):
            return f"{OS_MODULES.get(module, module)}.{qualname}"
        if callable(value) and isinstance(module, str) and isinstance(qualname, str):
            module = OS_MODULES.get(module, module)
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
