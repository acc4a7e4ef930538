"""The layer rules of DESIGN.md §2, checked over the import graph of every module of the package.

Each top-level part has a rank; a module may import the package's parts of a lower rank and its
own part, never a higher one, and only the third-party libraries its layer allows. Product code
never imports ``dsh_notebook.testing``. The graph has no cycles (type-only imports included).
"""

from __future__ import annotations

import ast
from pathlib import Path

import dsh_notebook

PACKAGE = Path(dsh_notebook.__file__).resolve().parent

# part -> rank (DESIGN.md §2, top to bottom); a part imports only parts of a lower rank
RANK = {
    "errors": 0, "lazy": 0, "bridge": 0, "comm_routing": 0, "server_extension": 0, "protocol": 1, "transport": 2, "runtime": 3,
    "client": 4, "transcript": 5, "widget": 6, "context": 7, "page_protocol": 8, "notebook_tools": 9,
    "scripted_model": 10, "analyst": 11, "frontend": 12, "kernel": 13, "testing": 14,
}  # fmt: skip

# the kernel's rooms and top-level modules -> rank (DESIGN.md §2, the kernel's rooms); a room or
# module of the kernel imports only its own room and those of a lower rank
KERNEL_RANK = {
    "options": 0, "showing": 1, "persistence": 2, "notebook": 3, "registry": 4, "host": 5,
    "demo": 5, "tools": 6, "lifecycle": 7, "run": 8, "agent": 9, "entry": 10,
}  # fmt: skip

# part -> third-party modules it must never import (anywhere in its files)
FORBIDDEN = {
    "protocol": ("IPython", "ipywidgets", "anywidget", "anyio", "ipykernel"),
    "transport": ("IPython", "ipywidgets", "anywidget", "ipykernel"),
    "runtime": ("IPython", "ipywidgets", "anywidget", "pydantic", "ipykernel"),
    "client": ("IPython", "ipywidgets", "anywidget", "ipykernel"),
    "transcript": ("IPython", "ipywidgets", "anywidget", "anyio", "ipykernel"),
    "widget": ("IPython", "anyio", "ipykernel"),
    "context": ("IPython", "ipywidgets", "anywidget", "ipykernel", "anyio"),
    "scripted_model": ("IPython", "anyio", "pydantic", "anywidget", "ipykernel"),
    "analyst": ("IPython", "anyio", "pydantic", "anywidget", "ipykernel", "pandas", "numpy"),
    "frontend": ("anyio", "anywidget"),
    "page_protocol": ("IPython", "ipywidgets", "anywidget", "anyio", "ipykernel", "comm", "pydantic"),
}  # fmt: skip

# third-party modules a part may import only inside functions (lazily), never at module level;
# the MCP SDK only where the person's own servers are probed: importing it costs each kernel's
# first prompt ~0.5 s of CPU and ~27 MiB (the notebook tools' endpoint is our own)
_MCP_SDK = ("mcp", "mcp_types", "starlette")
LAZY_ONLY = {
    "notebook_tools": ("IPython", "ipykernel", *_MCP_SDK),
    "frontend": ("IPython", "ipykernel", "comm"),
    "kernel": _MCP_SDK,
}


def _modules() -> dict[str, Path]:
    out = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


MODULES = _modules()


def _part(module: str) -> str:
    return module.split(".")[1] if module.count(".") else ""


def _resolve(module: str, path: Path, node: ast.ImportFrom) -> list[str]:
    base = node.module or ""
    if node.level:
        package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
        for _ in range(node.level - 1):
            package = package.rsplit(".", 1)[0]
        base = f"{package}.{base}" if base else package
    targets = []
    for alias in node.names:  # `from pkg import submodule` imports the submodule
        candidate = f"{base}.{alias.name}"
        targets.append(candidate if candidate in MODULES else base)
    return targets


def _imports(module: str, path: Path) -> list[tuple[str, bool]]:
    """(imported module, at module level?) for every import statement of the file."""
    tree = ast.parse(path.read_text())
    top = {id(n) for n in tree.body}
    for n in tree.body:  # imports under a top-level `if TYPE_CHECKING:` / try count as top level
        if isinstance(n, (ast.If, ast.Try)):
            top.update(id(c) for c in ast.walk(n))
    out: list[tuple[str, bool]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(a.name, id(node) in top) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            out += [(t, id(node) in top) for t in _resolve(module, path, node)]
    return out


def _graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for module, path in MODULES.items():
        edges = set()
        for name, _ in _imports(module, path):
            while name and name not in MODULES and "." in name:
                name = name.rsplit(".", 1)[0]
            if name in MODULES and name != module:
                edges.add(name)
        graph[module] = edges
    return graph


def test_every_part_of_the_package_has_a_rank() -> None:
    parts = {_part(m) for m in MODULES} - {""}
    assert parts - set(RANK) == set(), "add the new part to RANK (and to DESIGN.md §2)"


def test_parts_import_only_lower_ranks_and_no_product_code_imports_testing() -> None:
    violations = []
    for module, path in MODULES.items():
        part = _part(module)
        if not part:  # dsh_notebook/__init__.py: the public surface re-exports the layers
            continue
        for name, _ in _imports(module, path):
            if not name.startswith("dsh_notebook."):
                continue
            target = _part(name)
            if target != part and RANK[target] > RANK[part]:
                violations.append(f"{module} ({part}) imports {name} ({target})")
    assert violations == []


def _room(module: str) -> str | None:
    """The kernel room (or top-level kernel module) a module belongs to; None outside the kernel."""
    parts = module.split(".")
    return parts[2] if len(parts) > 2 and parts[1] == "kernel" else None


def test_every_kernel_room_has_a_rank() -> None:
    rooms = {_room(m) for m in MODULES} - {None}
    assert rooms == set(KERNEL_RANK), "add the new room to KERNEL_RANK (and to DESIGN.md §2)"


def test_kernel_rooms_import_only_their_own_room_and_lower_ranks() -> None:
    violations = []
    for module, edges in _graph().items():
        room = _room(module)
        if room is None:
            continue
        for target in edges:
            other = _room(target)
            if other is not None and other != room and KERNEL_RANK[other] >= KERNEL_RANK[room]:
                violations.append(f"{module} ({room}) imports {target} ({other})")
    assert violations == []


def test_parts_import_only_the_libraries_their_layer_allows() -> None:
    violations = []
    for module, path in MODULES.items():
        part = _part(module)
        for name, top_level in _imports(module, path):
            root = name.split(".")[0]
            if root in FORBIDDEN.get(part, ()):
                violations.append(f"{module} imports {name}")
            if top_level and root in LAZY_ONLY.get(part, ()):
                violations.append(f"{module} imports {name} at module level")
    assert violations == []


def test_the_import_graph_has_no_cycles() -> None:
    graph = _graph()
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []
    counter = 0

    def visit(node: str) -> None:  # Tarjan's strongly connected components
        nonlocal counter
        index[node] = low[node] = counter
        counter += 1
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph[node]):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for module in sorted(graph):
        if module not in index:
            visit(module)
    assert cycles == []


def test_the_checks_see_a_violation() -> None:
    """The graph walk is not vacuous: the kernel imports the client, the testing plugin the
    scripted model, and the ranks order them."""
    graph = _graph()
    assert "dsh_notebook.client" in graph["dsh_notebook.kernel.agent"]
    assert any(t.startswith("dsh_notebook.scripted_model") for t in graph["dsh_notebook.testing"])
    assert RANK["kernel"] > RANK["client"] and RANK["testing"] > RANK["kernel"]
    assert "dsh_notebook.kernel.tools.tools_host" in graph["dsh_notebook.kernel.lifecycle"]
    assert KERNEL_RANK["lifecycle"] > KERNEL_RANK["tools"] > KERNEL_RANK["registry"]
