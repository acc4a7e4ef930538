"""The ``run_python`` tool: the agent's code run in the person's kernel, captured.

A plain function over an IPython ``InteractiveShell`` returning text plus PNG bytes, testable with
a bare shell. The server in :mod:`.server` runs it on the kernel's main thread after approval.

Guarantees:

- **Bounded output, the error first to survive.** Every text field is at most ``max_chars``
  characters (stdout keeps its head and tail, stderr and tracebacks their tail, where the error
  is), cut with the transcript's one marker (:func:`~dsh_notebook.transcript.bounds.clip`); at
  most :data:`MAX_FIGURES` figures are returned per call. :meth:`RunPythonResult.as_text` keeps
  the error (exception line and traceback tail) whole under its cap and cuts the rest.
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
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..context.describe import describe_value, loaded_module, short_summary, truncate
from ..context.figures import describe_figure
from ..transcript.bounds import clip
from .figures import watch_displayed_figures
from .tool_texts import (
    INTERRUPTED,
    LAST_VALUE,
    RAN_WITHOUT_OUTPUT,
    figure_as_text,
    run_python_figures,
)

__all__ = [
    "CELL_OUTPUT_MIMES",
    "MAX_FIGURES",
    "RunPythonResult",
    "nbformat_outputs",
    "run_python",
]

MAX_FIGURES = 4
"""Most figures one :func:`run_python` call returns (more are counted, not rendered)."""

ERROR_LINE_MAX = 500
"""Most characters of :attr:`RunPythonResult.error_line`."""


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

    error_line: str | None = None
    """The exception line (``KeyError: 'missing'``), at most :data:`ERROR_LINE_MAX` characters;
    set with :attr:`error`."""

    @property
    def ok(self) -> bool:
        return self.error is None and not self.interrupted

    def sends_images(self, images: bool) -> bool:
        """Whether the figures go to the model as PNGs: the route takes images (``images``) and
        the code did not raise."""
        return images and self.error is None and bool(self.figures)

    def as_text(
        self, max_chars: int = 8000, *, images: bool = True, notes: Sequence[str] = ()
    ) -> str:
        """A report for the model, at most ``max_chars`` characters (``max_chars`` ≥ 400).

        Order: ``notes`` (e.g. where the code was kept), the interrupt, stdout, stderr, figure
        descriptions, displays, the last value, what became of the figures (attached as PNG when
        ``images`` and the code did not raise, else why not), and the error last. Over the cap the
        error (traceback tail, exception line included) and the short lines are kept whole and the
        other sections share the rest: stdout keeps its head and tail, stderr its tail, the
        others their head, each cut with the one marker (:func:`~dsh_notebook.transcript.bounds
        .truncation_mark`).
        """
        fixed_head = [note for note in notes if note]
        if self.interrupted:
            fixed_head.append(INTERRUPTED)
        # (title, body, share of the head kept when cut)
        flexible: list[tuple[str, str, float]] = []
        if self.stdout:
            flexible.append(("stdout:\n", self.stdout, 0.5))
        if self.stderr:
            flexible.append(("stderr:\n", self.stderr, 0.0))
        for number, text in enumerate(self.figure_texts, start=1):
            flexible.append((figure_as_text(number), text, 1.0))
        for text in self.displayed:
            flexible.append(("displayed:\n", text, 1.0))
        if self.value is not None:
            flexible.append((LAST_VALUE, self.value, 1.0))
        fixed_tail = []
        figures = self._figures_note(images)
        if figures:
            fixed_tail.append(figures)
        if self.error is not None:
            fixed_tail.append("error:\n" + self._error_text(max(200, max_chars // 2)))
        if not (fixed_head or flexible or fixed_tail):
            return RAN_WITHOUT_OUTPUT
        separators = 2 * (len(fixed_head) + len(flexible) + len(fixed_tail) - 1)
        room = max_chars - separators - sum(map(len, fixed_head + fixed_tail))
        room -= sum(len(title) for title, _, _ in flexible)
        allowances = _share(room, [len(body) for _, body, _ in flexible])
        middle = [
            title + clip(body, allowed, head_share=head)
            for (title, body, head), allowed in zip(flexible, allowances, strict=True)
        ]
        text = "\n\n".join(fixed_head + middle + fixed_tail)
        return clip(text, max_chars, head_share=0.3)  # a safety net: the error is at the end

    def _figures_note(self, images: bool) -> str | None:
        count = len(self.figures)
        if not count and not self.figures_omitted:
            return None
        note = run_python_figures(count, attached=self.sends_images(images), takes_images=images)
        if self.figures_omitted:
            note += f"; {self.figures_omitted} more not rendered"
        return note + "."

    def _error_text(self, limit: int) -> str:
        """The traceback's tail within ``limit``; its exception line first when the tail alone
        would lose it (a very long message)."""
        error = self.error or ""
        cut = clip(error, limit, head_share=0.0)
        line = self.error_line
        if cut == error or not line or line in cut:
            return cut
        line = clip(line, ERROR_LINE_MAX, head_share=0.5)
        return line + "\n" + clip(error, max(0, limit - len(line) - 1), head_share=0.0)


def _share(room: int, sizes: list[int]) -> list[int]:
    """How many characters each of ``sizes`` may keep so that all fit ``room``: everything when
    it fits, else the small ones whole and an equal share of the rest for the large ones."""
    room = max(0, room)
    allowed = [0] * len(sizes)
    order = sorted(range(len(sizes)), key=lambda i: sizes[i])
    left = len(sizes)
    for i in order:
        fair = room // left if left else 0
        allowed[i] = min(sizes[i], fair)
        room -= allowed[i]
        left -= 1
    return allowed


def _tail(text: str, max_chars: int) -> str:
    return clip(text, max_chars, head_share=0.0)


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
        stdout=clip(captured.stdout.rstrip(), budget // 2, head_share=0.5),
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
        lines = traceback.format_exception_only(type(error), error)
        result.error_line = clip("".join(lines).strip(), ERROR_LINE_MAX, head_share=0.5)
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
