"""The notebook tools the agent gets over MCP, as plain functions over a shell-like object.

No MCP, no threads, no kernel needed: every function takes the namespace (``shell.user_ns``) or
an IPython ``InteractiveShell`` and returns text (plus PNG bytes for :func:`run_python`), so they
are testable with a bare ``InteractiveShell``. The server in :mod:`.server` decides *where*
they run (read-only tools on a worker thread, :func:`run_python` on the kernel's main thread).

Guarantees:

- **Bounded output.** Every text result is at most ``max_chars`` characters (cut text ends with
  ``… [truncated, N more chars]``; tracebacks keep their tail, where the error is). Values are
  described with :func:`~dsh_notebook.context.describe.describe_value`, so the work per value is
  bounded too (a user-defined ``repr``/``_repr_llm_`` still costs what it costs; the server
  bounds each read-only call in time). At most :data:`MAX_FIGURES`
  figures are returned per call.
- **Read-only tools never change the namespace** and never raise for odd values; they read a
  snapshot (``list(ns.items())``) of the namespace, so a concurrent cell cannot break the
  iteration. They are *not* atomic with respect to a cell mutating a value at the same moment.
- :func:`run_python` **changes the namespace on purpose** (that is its job) but leaves IPython's
  bookkeeping alone: no history entry, no ``Out[n]``/``_``/``_N`` update, no ``pre/post_run_cell``
  events (so ``{Err[n]}`` of the person's cells stays right), and no output or ``error`` message
  published to the frontend (stdout, stderr and rich displays are captured). Why not
  ``shell.run_cell(store_history=False)``: its display hook still writes ``Out[<last count>]``
  and ``_``, its ``post_run_cell`` would file an error under the person's last cell, and in
  ipykernel its display hook and traceback go out on IOPub under the previous cell's parent, i.e.
  into that cell's output area. Magics work (the code goes through ``shell.transform_cell``);
  top-level ``await`` does not.
- **Interrupts:** a ``KeyboardInterrupt`` raised while the code runs is reported in the result
  (``interrupted=True``), not re-raised. Any other ``BaseException`` from the code is reported
  too (``SystemExit`` included): the shell stays usable.
- Not thread-safe by itself: call :func:`run_python` on the thread that owns the shell (the
  kernel's main thread); see :class:`.executor.MainThreadExecutor`.
"""

from __future__ import annotations

import ast
import base64
import difflib
import inspect
import io
import itertools
import sys
import threading
import traceback
import types
from collections.abc import Container, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..context.describe import describe_value, short_summary, truncate
from ..context.figures import describe_figure
from .figures import watch_displayed_figures

__all__ = [
    "HIDDEN_NAMES",
    "MAX_FIGURES",
    "RunPythonResult",
    "CELL_OUTPUT_MIMES",
    "describe_variable",
    "nbformat_outputs",
    "notebook_history",
    "notebook_variables",
    "run_python",
    "visible_variables",
]

HIDDEN_NAMES: frozenset[str] = frozenset({"In", "Out", "exit", "quit", "get_ipython", "open"})
"""IPython's own names, always left out of listings (beside ``shell.user_ns_hidden``)."""

MAX_FIGURES = 4
"""Most figures one :func:`run_python` call returns (more are counted, not rendered)."""

_PREVIEW_CHARS = 80
_MAX_LISTED = 200


# -- variables ----------------------------------------------------------------------------------


def _is_listed(name: str, value: Any, hidden: Container[str]) -> bool:
    if not isinstance(name, str) or name.startswith("_") or name in HIDDEN_NAMES or name in hidden:
        return False
    try:
        return not (
            isinstance(value, (types.ModuleType, type)) or inspect.isroutine(value)
        ) and type(value).__name__ not in ("ExitAutocall", "ZMQExitAutocall")
    except Exception:
        return False


def visible_variables(
    user_ns: Mapping[str, Any], hidden: Container[str] = frozenset()
) -> list[tuple[str, Any]]:
    """The person's variables in definition order: no private names, modules, functions,
    classes or IPython internals (``hidden`` adds names, e.g. ``shell.user_ns_hidden``)."""
    try:
        items = list(user_ns.items())  # one snapshot: a concurrent cell cannot break iteration
    except Exception:
        return []
    return [(name, value) for name, value in items if _is_listed(name, value, hidden)]


def _module(name: str) -> Any:
    return sys.modules.get(name)


def _format_bytes(n: int) -> str:
    size = float(n)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if size < 1024 or unit == "GiB":
            return f"{int(size)} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{n} B"  # pragma: no cover - loop always returns


def _memory(value: Any) -> str:
    """Shallow memory size: pandas ``memory_usage(deep=False)``, numpy ``nbytes``, else
    ``sys.getsizeof`` (the container itself, not what it refers to)."""
    try:
        pd, np, pl = _module("pandas"), _module("numpy"), _module("polars")
        if pd is not None and isinstance(value, pd.DataFrame):
            return _format_bytes(int(value.memory_usage(index=True, deep=False).sum()))
        if pd is not None and isinstance(value, pd.Series):
            return _format_bytes(int(value.memory_usage(index=True, deep=False)))
        if np is not None and isinstance(value, np.ndarray):
            return _format_bytes(int(value.nbytes))
        if pl is not None and isinstance(value, (pl.DataFrame, pl.Series)):
            return _format_bytes(int(value.estimated_size()))
        return _format_bytes(sys.getsizeof(value))
    except Exception:
        return "?"


def _shape(value: Any) -> str:
    try:
        shape = getattr(value, "shape", None)
        if isinstance(shape, tuple) and all(isinstance(s, int) for s in shape):
            return "(" + ", ".join(str(s) for s in shape) + ("," if len(shape) == 1 else "") + ")"
        if isinstance(value, (str, bytes, bytearray, list, tuple, dict, set, frozenset)):
            return f"len {len(value):,}"
        if hasattr(type(value), "__len__") and not isinstance(value, type):
            return f"len {len(value):,}"
    except Exception:
        pass
    return ""


def _one_line(text: str, width: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


def _preview(value: Any) -> str:
    try:
        pd = _module("pandas")
        if pd is not None and isinstance(value, pd.DataFrame):
            cols = [f"{c} ({t})" for c, t in zip(value.columns[:8], value.dtypes[:8], strict=True)]
            more = ", …" if len(value.columns) > 8 else ""
            return _one_line("columns: " + ", ".join(cols) + more, _PREVIEW_CHARS)
        if pd is not None and isinstance(value, pd.Series):
            return _one_line(f"dtype {value.dtype}; " + ", ".join(map(str, value.head(5))), 80)
        np = _module("numpy")
        if np is not None and isinstance(value, np.ndarray):
            head = value.ravel()[:6].tolist()
            return _one_line(repr(head)[:-1] + (", …]" if value.size > 6 else "]"), 80)
        if isinstance(value, (list, tuple, set, frozenset)):
            items = [
                _one_line(describe_value(x, max_chars=40), 40) for x in itertools.islice(value, 5)
            ]
            return _one_line(", ".join(items) + (", …" if len(value) > 5 else ""), _PREVIEW_CHARS)
        text = describe_value(value, max_chars=300, max_rows=3)
        lines = text.splitlines()
        if len(lines) > 1 and ":" in lines[0]:
            text = " ".join(lines[1:])  # the first line repeats the type/shape summary
        return _one_line(text, _PREVIEW_CHARS)
    except Exception:
        return _one_line(short_summary(value), _PREVIEW_CHARS)


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def notebook_variables(
    user_ns: Mapping[str, Any],
    *,
    hidden: Container[str] = frozenset(),
    max_chars: int = 8000,
    max_rows: int = _MAX_LISTED,
) -> str:
    """A table of the person's variables: name, type, shape/len, memory size, one-line preview.

    Left out: names starting with ``_``, modules, functions, classes, IPython internals
    (``In``, ``Out``, ``exit``, ``quit``, ``get_ipython`` and ``hidden``). At most ``max_rows``
    rows and ``max_chars`` characters.
    """
    variables = visible_variables(user_ns, hidden)
    if not variables:
        return (
            "The notebook has no user variables yet (modules, functions, classes and names "
            "starting with _ are not listed)."
        )
    lines = [
        f"{len(variables)} variable(s) in the notebook kernel (modules, functions, classes and "
        "_private names are not listed):",
        "",
        "name | type | shape/len | size | preview",
        "--- | --- | --- | --- | ---",
    ]
    for name, value in variables[:max_rows]:
        type_name = _cell(type(value).__name__)
        lines.append(
            f"{_cell(name)} | {type_name} | {_shape(value)} | {_memory(value)} | "
            f"{_cell(_preview(value))}"
        )
    if len(variables) > max_rows:
        lines.append(f"… {len(variables) - max_rows:,} more variables not shown")
    return truncate("\n".join(lines), max_chars)[0]


def _lookup(user_ns: Mapping[str, Any], name: str) -> tuple[bool, Any]:
    """``name`` or a dotted attribute path (``df.columns``); no code is evaluated."""
    head, *attrs = name.strip().split(".")
    if head not in user_ns:
        return False, None
    value = user_ns[head]
    for attr in attrs:
        if not attr.isidentifier() or attr.startswith("__"):
            return False, None
        try:
            value = getattr(value, attr)
        except Exception:
            return False, None
    return True, value


def describe_variable(
    user_ns: Mapping[str, Any],
    name: str,
    max_chars: int = 8000,
    *,
    hidden: Container[str] = frozenset(),
) -> tuple[bool, str]:
    """``(found, text)``: a bounded description of variable ``name`` (or ``a.b`` attribute path).

    An unknown name gives ``found=False`` and a message naming similar variables.
    """
    found, value = _lookup(user_ns, name) if isinstance(name, str) and name.strip() else (False, 0)
    if not found:
        names = [n for n, _ in visible_variables(user_ns, hidden)]
        close = difflib.get_close_matches(str(name).split(".")[0], names, n=5, cutoff=0.5)
        if close:
            hint = "Similar names: " + ", ".join(close) + "."
        elif names:
            listed = ", ".join(names[:20]) + (", …" if len(names) > 20 else "")
            hint = f"Variables in the notebook: {listed}."
        else:
            hint = "The notebook has no user variables yet."
        text = f"No variable named {name!r} in the notebook kernel. {hint}"
        return False, truncate(text, max_chars)[0]
    header = f"{name.strip()}: {short_summary(value)}\n"
    body = describe_value(value, max_chars=max(1, max_chars - len(header)))
    return True, truncate(header + body, max_chars)[0]


# -- history ------------------------------------------------------------------------------------


def _inputs(shell: Any) -> list[str]:
    history = getattr(getattr(shell, "history_manager", None), "input_hist_raw", None)
    if isinstance(history, list) and history:
        return [str(x) for x in history]
    cells = getattr(shell, "user_ns", {}).get("In")
    return [str(x) for x in cells] if isinstance(cells, list) else []


def notebook_history(
    shell: Any,
    n: int = 10,
    *,
    errors: Mapping[int, str] | None = None,
    max_chars: int = 8000,
    max_input_chars: int = 1500,
    max_output_chars: int = 600,
) -> str:
    """The last ``n`` executed cells: source (raw, as typed), the result (``Out[k]``, described
    and capped) and the error the cell raised (from ``errors``, keyed by execution count)."""
    n = max(1, min(int(n), 50))
    inputs = _inputs(shell)
    outputs = getattr(shell, "user_ns", {}).get("Out")
    outputs = outputs if isinstance(outputs, Mapping) else {}
    errors = errors or {}
    numbers = [k for k in range(len(inputs) - 1, 0, -1) if inputs[k].strip()][:n]
    if not numbers:
        return "No cells have been executed in this kernel yet."
    parts: list[str] = []
    for k in reversed(numbers):
        source = truncate(inputs[k].rstrip(), max_input_chars)[0]
        block = [f"## In [{k}]", source]
        if k in outputs:
            block.append(f"Out [{k}]: " + describe_value(outputs[k], max_chars=max_output_chars))
        if k in errors:
            block.append(f"Error [{k}]: " + truncate(errors[k], max_output_chars)[0])
        parts.append("\n".join(block))
    head = f"The last {len(numbers)} executed cell(s), oldest first:\n\n"
    return truncate(head + "\n\n".join(parts), max_chars)[0]


# -- run_python ---------------------------------------------------------------------------------


@dataclass
class RunPythonResult:
    """What one :func:`run_python` call produced. Text fields are already capped."""

    stdout: str = ""
    stderr: str = ""
    value: str | None = None
    """The last expression's value, described (``None`` when the code ends in a statement or the
    value is ``None``)."""
    displayed: list[str] = field(default_factory=list)
    """``text/plain`` of rich outputs (``display(...)``) other than images."""
    error: str | None = None
    """Traceback text when the code raised (tail kept)."""
    interrupted: bool = False
    figures: list[bytes] = field(default_factory=list)
    """PNG bytes of figures shown or created by the code (at most :data:`MAX_FIGURES`)."""
    figures_omitted: int = 0
    cell_outputs: list[dict[str, Any]] = field(default_factory=list)
    """The call's outputs as nbformat v4 outputs (stream, display_data, execute_result, error),
    in the order a cell would show them; filled only when asked (``outputs=True``), see
    :func:`nbformat_outputs`. Not part of what the model receives."""

    figure_texts: list[str] = field(default_factory=list)
    """A text description of each figure (titles, labels, limits, series), in the order of
    :attr:`figures` (at most :data:`MAX_FIGURES`), for a model without image input."""

    @property
    def ok(self) -> bool:
        return self.error is None and not self.interrupted

    def as_text(self, max_chars: int = 8000) -> str:
        """A report for the model, at most ``max_chars`` characters."""
        sections: list[str] = []
        if self.interrupted:
            sections.append("Interrupted: the user stopped the code (Interrupt kernel).")
        if self.stdout:
            sections.append("stdout:\n" + self.stdout)
        if self.stderr:
            sections.append("stderr:\n" + self.stderr)
        for number, text in enumerate(self.figure_texts, start=1):
            sections.append(f"figure {number} (described as text):\n{text}")
        for text in self.displayed:
            sections.append("displayed:\n" + text)
        if self.value is not None:
            sections.append("value of the last expression:\n" + self.value)
        if self.error is not None:
            sections.append("error:\n" + self.error)
        if self.figures or self.figures_omitted:
            note = f"{len(self.figures)} figure(s) attached as PNG"
            if self.figures_omitted:
                note += f"; {self.figures_omitted} more not rendered"
            sections.append(note + ".")
        if not sections:
            sections.append("The code ran without output.")
        return truncate("\n\n".join(sections), max_chars)[0]


def _tail(text: str, max_chars: int) -> str:
    if len(text) <= max_chars:
        return text
    marker = f"[… {len(text) - max_chars:,} earlier chars cut] "
    return marker + text[len(text) - max(0, max_chars - len(marker)) :]


def _format_error(exc: BaseException, skip_frames: int = 1) -> str:
    tb = exc.__traceback__
    for _ in range(skip_frames):
        if tb is not None:
            tb = tb.tb_next
    try:
        return "".join(traceback.format_exception(type(exc), exc, tb)).rstrip()
    except Exception:  # pragma: no cover - a broken __str__ is handled by traceback already
        return f"{type(exc).__name__}"


def _compile_name(shell: Any, source: str) -> str:
    compiler = getattr(shell, "compile", None)
    try:
        name = compiler.cache(source, 0, source) if compiler is not None else None
    except Exception:
        name = None
    return name if isinstance(name, str) else "<run_python>"


def _execute(shell: Any, code: str) -> tuple[Any, BaseException | None, str]:
    """Run ``code`` in the shell's namespace; ``(last value, exception, filename)``."""
    try:
        source = shell.transform_cell(code) if hasattr(shell, "transform_cell") else code
        tree = ast.parse(source, "<run_python>", "exec")
    except Exception as exc:  # SyntaxError, or a failing input transformer
        return None, exc, "<run_python>"
    filename = _compile_name(shell, source)
    last: ast.expr | None = None
    tail = tree.body[-1] if tree.body else None
    if isinstance(tail, ast.Expr):
        tree.body.pop()
        last = tail.value
    global_ns = getattr(shell, "user_global_ns", None) or shell.user_ns
    local_ns = shell.user_ns
    try:
        exec(compile(tree, filename, "exec", dont_inherit=True), global_ns, local_ns)
        value = None
        if last is not None:
            expression = ast.Expression(last)
            ast.fix_missing_locations(expression)
            value = eval(
                compile(expression, filename, "eval", dont_inherit=True), global_ns, local_ns
            )
        return value, None, filename
    except BaseException as exc:  # the model's code: report everything, even SystemExit
        return None, exc, filename


def _figure_numbers() -> set[int]:
    plt = _module("matplotlib.pyplot")
    if plt is None:
        return set()
    try:
        return {int(n) for n in plt.get_fignums()}
    except Exception:
        return set()


def _render_new_figures(
    before: set[int], budget: int, texts: list[str] | None = None, text_chars: int = 1500
) -> tuple[list[bytes], int]:
    """PNGs of figures opened since ``before``; they are closed (they belong to this call).
    Each one is also described into ``texts`` (when given) before it is closed."""
    plt = _module("matplotlib.pyplot")
    if plt is None:
        return [], 0
    images: list[bytes] = []
    omitted = 0
    for number in sorted(_figure_numbers() - before):
        try:
            fig = plt.figure(number)
            if texts is not None:
                texts.append(describe_figure(fig, max_chars=text_chars))
            if len(images) < budget:
                buffer = io.BytesIO()
                fig.savefig(buffer, format="png", dpi=100, bbox_inches="tight")
                images.append(buffer.getvalue())
            else:
                omitted += 1
            plt.close(fig)
        except Exception:
            omitted += 1
    return images, omitted


def _png(data: Any) -> bytes | None:
    if isinstance(data, bytes):
        return data
    if isinstance(data, str):
        try:
            return base64.b64decode(data, validate=False)
        except Exception:
            return None
    return None


def _rich_outputs(outputs: Iterable[Any], max_chars: int) -> tuple[list[bytes], list[str]]:
    images: list[bytes] = []
    texts: list[str] = []
    for output in outputs:
        data = getattr(output, "data", None) or {}
        png = _png(data.get("image/png"))
        if png is not None:
            images.append(png)
        elif "text/plain" in data:
            texts.append(truncate(str(data["text/plain"]), max_chars)[0])
    return images, texts


class _ThisThreadOnly:
    """The shell's display publisher while :func:`run_python` captures: ``publish`` and
    ``clear_output`` from the thread running the code are captured, those of other threads (the
    UI pump publishing a run's live output) go to the kernel's own publisher as usual, so they
    are neither lost from the page nor mistaken for the code's own displays."""

    def __init__(self, capturing: Any, original: Any, thread: threading.Thread) -> None:
        self._capturing, self._original, self._thread = capturing, original, thread

    def _target(self) -> Any:
        return self._capturing if threading.current_thread() is self._thread else self._original

    def publish(self, *args: Any, **kwargs: Any) -> Any:
        return self._target().publish(*args, **kwargs)

    def clear_output(self, *args: Any, **kwargs: Any) -> Any:
        return self._target().clear_output(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._target(), name)


CELL_OUTPUT_MIMES: tuple[str, ...] = ("text/plain", "image/png", "image/jpeg")
"""The mime types an agent cell's rich outputs keep. The code is the agent's, so its HTML,
JavaScript, SVG and markdown (which JupyterLab may render as trusted after a save) are dropped;
running the cell again shows them in full."""

MAX_CELL_OUTPUT_CHARS = 100_000
"""Most characters of one text output (stream, ``text/plain``, traceback) in an agent cell."""


def _data_bundle(data: Mapping[str, Any], metadata: Mapping[str, Any] | None) -> dict[str, Any]:
    kept: dict[str, Any] = {}
    for mime in CELL_OUTPUT_MIMES:
        value = data.get(mime)
        if mime == "text/plain" and isinstance(value, str):
            kept[mime] = _tail(value, MAX_CELL_OUTPUT_CHARS)
        elif mime != "text/plain" and isinstance(value, (bytes, str)):
            raw = value if isinstance(value, str) else base64.b64encode(value).decode()
            kept[mime] = raw.replace("\n", "")
    meta: dict[str, Any] = {}
    if metadata:
        for mime in kept:
            sizes = metadata.get(mime)
            if isinstance(sizes, Mapping):
                meta[mime] = {k: v for k, v in sizes.items() if k in ("width", "height")}
    return {"data": kept, "metadata": meta}


def nbformat_outputs(
    shell: Any,
    captured: Any,
    value: Any,
    error: BaseException | None,
    error_text: str | None,
    figures: list[bytes],
) -> list[dict[str, Any]]:
    """What a notebook cell running the same code would show, as nbformat outputs: stdout and
    stderr streams, the rich displays (:data:`CELL_OUTPUT_MIMES` only), figures the code left
    open (``image/png``), the last expression's value (``execute_result`` with
    ``execution_count: None``: it never ran as a cell) or the error. Texts are capped at
    :data:`MAX_CELL_OUTPUT_CHARS`. Never raises: a value whose formatter fails is shown by
    ``repr``-free text.
    """
    outputs: list[dict[str, Any]] = []
    for name, text in (("stdout", captured.stdout), ("stderr", captured.stderr)):
        if text:
            outputs.append(
                {"output_type": "stream", "name": name, "text": _tail(text, MAX_CELL_OUTPUT_CHARS)}
            )
    for output in captured.outputs:
        bundle = _data_bundle(
            getattr(output, "data", None) or {}, getattr(output, "metadata", None)
        )
        if bundle["data"]:
            outputs.append({"output_type": "display_data", **bundle})
    for png in figures:
        outputs.append(
            {"output_type": "display_data", "data": {"image/png": base64.b64encode(png).decode(),
             "text/plain": "<Figure>"}, "metadata": {}}
        )  # fmt: skip
    if error is not None:
        lines = (error_text or type(error).__name__).splitlines()
        outputs.append(
            {"output_type": "error", "ename": type(error).__name__,
             "evalue": _tail(str(error), 4000), "traceback": lines}
        )  # fmt: skip
    elif value is not None:
        data: Mapping[str, Any] = {}
        metadata: Mapping[str, Any] = {}
        formatter = getattr(shell, "display_formatter", None)
        try:
            if formatter is not None:
                data, metadata = formatter.format(value, include=set(CELL_OUTPUT_MIMES))
        except Exception:
            data = {}
        if "text/plain" not in data:
            data = {**data, "text/plain": short_summary(value)}
        outputs.append(
            {"output_type": "execute_result", "execution_count": None,
             **_data_bundle(data, metadata)}
        )  # fmt: skip
    return outputs


def run_python(
    shell: Any, code: str, *, max_chars: int = 8000, outputs: bool = False
) -> RunPythonResult:
    """Run ``code`` in the notebook's namespace on the calling thread and report what happened.

    Captures stdout, stderr and rich displays (``IPython.utils.capture.capture_output``), the
    value of a trailing expression, the traceback, and matplotlib figures the code showed or left
    open (rendered to PNG, then closed so they do not spill into the person's next cell). See the
    module docstring for what it deliberately does *not* touch. Never raises for errors in
    ``code``; a ``KeyboardInterrupt`` is reported as ``interrupted=True``. With ``outputs`` the
    result also carries :attr:`RunPythonResult.cell_outputs` (what the model gets is the same).
    """
    from IPython.utils.capture import capture_output

    budget = max(200, max_chars)
    before = _figure_numbers()
    interrupted = False
    original_pub = getattr(shell, "display_pub", None)
    text_chars = max(800, budget // 4)  # per figure: for a text-only model this is the plot
    with (
        watch_displayed_figures(shell, max_chars=text_chars) as figure_texts,
        capture_output(stdout=True, stderr=True, display=True) as captured,
    ):
        capturing_pub = getattr(shell, "display_pub", None)
        if original_pub is not None and capturing_pub is not original_pub:
            # restored to original_pub by capture_output on the way out
            shell.display_pub = _ThisThreadOnly(
                capturing_pub, original_pub, threading.current_thread()
            )
        try:
            value, error, _ = _execute(shell, code)
        except KeyboardInterrupt as exc:  # arrived outside the exec (between our own lines)
            value, error = None, exc
    if isinstance(error, KeyboardInterrupt):
        interrupted, error = True, None
    shown, displayed = _rich_outputs(captured.outputs, budget // 4)
    created, omitted = _render_new_figures(
        before, max(0, MAX_FIGURES - len(shown)), figure_texts, text_chars
    )
    figures = (shown + created)[:MAX_FIGURES]
    omitted += max(0, len(shown) + len(created) - MAX_FIGURES)
    result = RunPythonResult(
        stdout=_tail(captured.stdout.rstrip(), budget // 2),
        stderr=_tail(captured.stderr.rstrip(), budget // 4),
        displayed=displayed,
        interrupted=interrupted,
        figures=figures,
        figures_omitted=omitted,
        figure_texts=figure_texts[:MAX_FIGURES],
    )
    if error is not None:
        if isinstance(error, SyntaxError):
            text = "".join(traceback.format_exception_only(type(error), error)).rstrip()
        else:
            text = _format_error(error)
        result.error = _tail(text, budget // 2)
    elif value is not None:
        result.value = describe_value(value, max_chars=budget // 2)
    if outputs:
        shown_error: BaseException | None = error
        shown_text = None
        if interrupted:
            shown_error, shown_text = KeyboardInterrupt(), "KeyboardInterrupt: interrupted by you"
        elif error is not None:
            shown_text = text
        result.cell_outputs = nbformat_outputs(
            shell, captured, value, shown_error, shown_text, created[: max(0, MAX_FIGURES)]
        )
    return result
