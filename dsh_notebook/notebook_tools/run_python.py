"""The ``run_python`` tool: the agent's code run in the person's kernel, captured.

A plain function over an IPython ``InteractiveShell`` returning text plus PNG bytes, testable with
a bare shell. The server in :mod:`.server` runs it on the kernel's main thread after approval.

Guarantees:

- **Bounded output.** Every text field is at most ``max_chars`` characters (tracebacks keep
  their tail, where the error is); at most :data:`MAX_FIGURES` figures are returned per call.
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
import io
import threading
import traceback
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..context.describe import describe_value, loaded_module, short_summary, truncate
from ..context.figures import describe_figure
from .figures import watch_displayed_figures

__all__ = [
    "CELL_OUTPUT_MIMES",
    "MAX_FIGURES",
    "RunPythonResult",
    "nbformat_outputs",
    "run_python",
]

MAX_FIGURES = 4
"""Most figures one :func:`run_python` call returns (more are counted, not rendered)."""


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
    plt = loaded_module("matplotlib.pyplot")
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
    plt = loaded_module("matplotlib.pyplot")
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
