"""Prompt interpolation: put notebook values into a ``%%dsh`` prompt, leaving everything else alone.

A prompt is prose and code written by a person, full of braces that are not ours: dict
comprehensions, JSON, f-strings, LaTeX, Jinja. ``str.format`` breaks on them, so
:func:`interpolate` replaces only brace groups that are exactly a reference **and** resolve;
every other character of the template is kept byte-for-byte.

References (no spaces inside the braces):

- ``{name}``: a variable of the namespace (``kind="variable"``);
- ``{name.attr.attr2}``: an attribute chain, by ``getattr`` only (``kind="attribute"``); a
  property may run, nothing is called or indexed;
- ``{In[n]}``, ``{Out[n]}``, ``{Err[n]}``: a cell's input, output or error by execution count
  (``kind="input"|"output"|"error"``); ``n`` is an integer, negative counts back from the current
  cell (see :func:`interpolate`).

Rules, in the order they apply:

1. A name or attribute starting with ``_`` is never resolved (``{_x}``, ``{df._mgr}``); ``In``,
   ``Out`` and ``Err`` are the only history forms.
2. A reference is only considered where it starts a brace group of its own: its ``{`` is not
   directly preceded by an ASCII letter, digit, ``_``, ``\\``, ``$``, ``^`` or ``{``, nor by a ``}``
   that closes anything but another reference, and its ``}`` is not directly followed by ``}``.
   So LaTeX (``\\frac{a}{b}``, ``x_{i}``, ``\\text{df}``), shell/JS templates (``${x}``) and
   nested braces (``{"a": {b}}``) stay verbatim even when the names exist, while ``{a}{b}`` and
   ``请看{df}`` resolve.
3. Escape: ``{{ref}}`` (a reference doubled, in a position where ``{ref}`` would count) yields the
   literal text ``{ref}``, as with ``str.format``. This is how to keep ``{x}`` verbatim when ``x``
   exists (e.g. a one-element set literal). Any other doubled braces (``{{ x }}``, ``{{}}``,
   ``}}`` in JSON) are kept as they are.
4. A reference that does not resolve (missing name or attribute, an attribute that raises, an
   index out of range, a private name) stays verbatim and is listed in
   :attr:`Interpolation.unresolved`.
5. Everything else (``{}``, ``{ x }``, ``{x!r}``, ``{x:>10}``, ``{k: v for …}``, ``{"a": 1}``,
   ``{1, 2}``, unbalanced braces) is not a reference: verbatim, not listed.

Values: strings, cell inputs and error texts are inserted as they are, anything else as
:func:`~dsh_notebook.context.describe.describe_value` text. By default a value replaces its
reference, unquoted; ``named=True`` (what ``%%dsh`` sends, see :func:`interpolate`) keeps the
name in the sentence and puts the value, fenced, in a section after the person's text. Each value is
capped at ``max_chars_per_value``; all inserted values together at ``max_total_chars`` (the template
text itself does not count). A value cut by either cap ends with ``[… N characters omitted …]``;
a value that does not fit in the last 100 characters of the total budget becomes an
``[… omitted: the N-character context limit was reached]`` marker instead. After 20 such markers
the 21st says ``…; later references are left as written`` and every later reference stays verbatim
(not resolved, not listed). The inserted values therefore total at most ``max_total_chars`` plus
under 2,500 characters of markers, however many references the template holds; the template's own
text is always kept whole, and :attr:`Interpolation.warnings` says that the limit was hit.

Time: resolving and describing one value (a property, a ``repr``, a ``_repr_llm_`` may run) is
bounded by ``describe_timeout`` seconds (default 2) with
:func:`~dsh_notebook.context.time_limit.call_with_time_limit`. A value that takes longer is
inserted as ``<value of df: describing it took longer than 2 s; pass a smaller object or define
_repr_llm_>``, its chunk has ``timed_out=True`` and :attr:`Interpolation.warnings` has one line
about it; the slow code is asked to stop (see that module for what can and cannot be stopped).

Text: the result (template and values) never contains surrogate code points, so it always
encodes as UTF-8: lone surrogates become U+FFFD (:mod:`~dsh_notebook.context.sanitize`).

Guarantees: no code is evaluated (only mapping lookups and ``getattr``; exceptions from properties
are caught and make the reference unresolved); :func:`interpolate` never raises an ``Exception``
for any namespace content (a ``KeyboardInterrupt`` — "Interrupt kernel" — while a value is being
described stops it and propagates); IPython is not imported.
"""

from __future__ import annotations

import re
import traceback
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, Literal

from ..transcript.sanitize import code_span, fence
from .describe import render, short_summary, truncate
from .sanitize import replace_lone_surrogates
from .time_limit import TimedOut, call_with_time_limit

__all__ = ["VALUES_HEADING", "ContextChunk", "ContextKind", "Interpolation", "interpolate"]

ContextKind = Literal["variable", "attribute", "input", "output", "error"]

_NAME = r"[^\W\d]\w*"
_REF = rf"(?:In|Out|Err)\[-?[0-9]+\]|{_NAME}(?:\.{_NAME})*"
_TOKEN = re.compile(rf"\{{\{{({_REF})\}}\}}|\{{({_REF})\}}")
_HISTORY = re.compile(r"(In|Out|Err)\[(-?[0-9]+)\]")
_BLOCKING_PREFIX = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_\\$^{")
_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
_MIN_USEFUL = 100  # less total budget than this left: omit the value instead of a stub
_MAX_OMISSION_MARKERS = 20  # then one last marker, and later references stay as written
_HISTORY_KIND: dict[str, ContextKind] = {"In": "input", "Out": "output", "Err": "error"}
_INLINE_MAX = 80  # a one-line value up to this long stays in the sentence (``named=True``)

VALUES_HEADING: Final = "Values referenced above (inserted by dsh_notebook):"
"""The line that opens the section of described values after the person's text
(``named=True``); a ``---`` rule precedes it."""


@dataclass(frozen=True)
class ContextChunk:
    """One substituted reference: what was written, what it was, how much text went in."""

    token: str
    """The reference as written, e.g. ``"{df}"`` or ``"{In[-1]}"``."""
    expression: str
    """The reference without braces, e.g. ``"df"``."""
    kind: ContextKind
    summary: str
    """One line (type and shape/length) for a context chip."""
    chars: int
    """Characters inserted in place of the token."""
    truncated: bool
    """Whether the value was cut (per-value or total cap) or left out (too slow to describe)."""
    timed_out: bool = False
    """Whether describing the value took longer than ``describe_timeout`` (a placeholder went
    in instead of the value)."""

    @property
    def name(self) -> str:
        """The reference by name: the expression, a history one by its execution count
        (``{Err[-2]}`` in cell 5 is ``Err[3]``)."""
        return _name_and_detail(self.expression, self.kind, self.summary)[0]

    @property
    def detail(self) -> str:
        """The summary without the name (``KeyError: 'a'``, ``DataFrame: 2 rows x 2 columns``)."""
        return _name_and_detail(self.expression, self.kind, self.summary)[1]


def _name_and_detail(expression: str, kind: ContextKind, summary: str) -> tuple[str, str]:
    if kind in ("input", "output", "error"):
        head, sep, rest = summary.partition(": ")
        if sep and _HISTORY.fullmatch(head):
            return head, rest
    return expression, summary


@dataclass(frozen=True)
class Interpolation:
    """The result of :func:`interpolate`."""

    text: str
    """The prompt to send."""
    chunks: list[ContextChunk] = field(default_factory=list)
    """One entry per substituted occurrence, in text order."""
    unresolved: list[str] = field(default_factory=list)
    """References that did not resolve (left verbatim), each once, in text order."""
    warnings: list[str] = field(default_factory=list)
    """One line each, for the person: a value that was too slow to describe, the total limit
    being reached. No prefix; the kernel adds its own."""


class _Unresolved(Exception):
    pass


@dataclass
class _Resolver:
    namespace: Mapping[str, Any]
    errors: Mapping[int, Any] | None
    current_cell: int | None

    def resolve(self, expression: str) -> tuple[ContextKind, Any, str | None]:
        """``(kind, value, summary override)``; raises :class:`_Unresolved`."""
        history = _HISTORY.fullmatch(expression)
        if history:
            return self._history(history.group(1), int(history.group(2)))
        first, *attrs = expression.split(".")
        if any(part.startswith("_") for part in (first, *attrs)):
            raise _Unresolved
        value = self._lookup(first)
        for attr in attrs:
            try:
                value = getattr(value, attr)
            except Exception:
                raise _Unresolved from None
        return ("attribute" if attrs else "variable"), value, None

    def _lookup(self, name: str) -> Any:
        try:
            if name not in self.namespace:
                raise _Unresolved
            return self.namespace[name]
        except _Unresolved:
            raise
        except Exception:
            raise _Unresolved from None

    def _history_source(self, name: str) -> Any:
        if name == "Err" and self.errors is not None:
            return self.errors
        return self._lookup(name)

    def _base(self) -> int:
        """The execution count negative indexes count back from."""
        if self.current_cell is not None:
            return self.current_cell
        inputs = self.namespace.get("In")
        if isinstance(inputs, Sequence) and not isinstance(inputs, str):
            return len(inputs)
        keys: list[int] = []
        errors = self.errors if self.errors is not None else self.namespace.get("Err")
        for source in (self.namespace.get("Out"), errors):
            if isinstance(source, Mapping):
                keys.extend(k for k in source if isinstance(k, int))
        return max(keys, default=0) + 1

    def _history(self, name: str, n: int) -> tuple[ContextKind, Any, str | None]:
        source = self._history_source(name)
        count = self._base() + n if n < 0 else n
        if count < 1 or (self.current_cell is not None and count >= self.current_cell):
            raise _Unresolved  # before the first cell, or the current cell (or a later one)
        kind = _HISTORY_KIND[name]
        try:
            if kind == "input":
                if not isinstance(source, Sequence) or isinstance(source, str):
                    raise _Unresolved
                value = source[count]
            else:
                if not isinstance(source, Mapping) or count not in source:
                    raise _Unresolved
                value = source[count]
        except _Unresolved:
            raise
        except Exception:
            raise _Unresolved from None
        if kind == "input":
            if not isinstance(value, str) or not value.strip():
                raise _Unresolved
            n_lines = value.count("\n") + (not value.endswith("\n"))
            return kind, value, f"In[{count}]: {n_lines} line{'s' * (n_lines != 1)} of code"
        if kind == "error":
            error_lines = _error_text(value).splitlines()
            last = next((ln for ln in reversed(error_lines) if ln.strip()), "")
            return kind, value, f"Err[{count}]: {last.strip()}"
        return kind, value, f"Out[{count}]: {short_summary(value)}"


def interpolate(
    template: str,
    namespace: Mapping[str, Any],
    *,
    max_chars_per_value: int = 4000,
    max_total_chars: int = 40000,
    errors: Mapping[int, Any] | None = None,
    current_cell: int | None = None,
    max_rows: int = 10,
    describe_timeout: float | None = 2.0,
    named: bool = False,
) -> Interpolation:
    r"""Replace the references in ``template`` that resolve in ``namespace`` (rules: module doc).

    ``In`` (a list, ``In[0] == ""``) and ``Out`` (a dict) are read from ``namespace`` as IPython
    keeps them; ``Err`` from ``errors`` when given, else from ``namespace["Err"]`` (a mapping from
    execution count to error text or exception; terminal colors are removed, an exception is
    formatted with its traceback). Cell inputs and error texts are inserted as they are.

    ``current_cell`` is the execution count of the cell being run. While a ``%%dsh`` cell runs,
    IPython has already appended it to ``In`` (and ``shell.execution_count`` is its number), so the
    magic should pass it: then ``{In[-1]}``, ``{Out[-1]}`` and ``{Err[-1]}`` are the cell before,
    and no reference reaches the current cell (or a later one). Without it, negative indexes count
    back from ``len(In)`` (``{In[-1]}`` is the last entry of ``In``, as in Python). Indexes are
    execution counts in all three, so ``{In[-1]}`` and ``{Out[-1]}`` always name the same cell.

    ``describe_timeout`` bounds resolving and describing each distinct reference, in seconds;
    ``None`` turns the bound off (values are then described on the calling thread).

    ``named=True`` (what ``%%dsh`` sends) keeps the reference's name in the sentence and moves the
    value after it: ``{sales}`` becomes ``\`sales\` (DataFrame: 1,200 rows x 4 columns; see
    below)`` and the person's text is followed by a ``---`` rule, :data:`VALUES_HEADING` and each
    value once, as ``\`sales\` (…):`` and a fenced block (``python`` for a cell input, ``text``
    otherwise; the fence outgrows every backtick run inside, so no value can close it). A value
    of one short line (at most 80 characters; not a cell input or an error) stays inline as
    ``\`x\` = \`3\` (int)``. The caps, markers and references left verbatim are the same in
    both forms; ``chunks[i].chars`` counts the value's characters either way.

    Each occurrence is substituted; a value referenced twice is resolved and described once.
    Never raises an ``Exception``; ``KeyboardInterrupt`` propagates.
    """
    template = replace_lone_surrogates(template)
    resolver = _Resolver(namespace, errors, current_cell)
    out: list[str] = []
    chunks: list[ContextChunk] = []
    unresolved: list[str] = []
    warnings: list[str] = []
    cache: dict[str, _Rendered | None] = {}
    section: dict[str, str] = {}  # the entries after the text, in order (named=True)
    used = 0
    omitted = 0  # references replaced by an omission marker
    left_as_written = 0  # references after the last marker
    pos = 0
    last_token_end = -1  # end of the last reference (a `}` there does not block the next one)

    for match in _TOKEN.finditer(template):
        start, end = match.span()
        if not _reference_position(template, start, end, last_token_end):
            continue
        escaped, expression = match.group(1), match.group(2)
        if escaped is not None:
            out.append(template[pos:start])
            out.append("{" + escaped + "}")
            pos = last_token_end = end
            continue
        if omitted > _MAX_OMISSION_MARKERS:
            left_as_written += 1  # past the last marker: not even looked up
            last_token_end = end
            continue
        token = match.group(0)
        if expression not in cache:
            cache[expression] = _render_within(
                resolver, expression, max_chars_per_value, max_rows, describe_timeout
            )
            rendered = cache[expression]
            if rendered is not None and rendered.timed_out:
                warnings.append(
                    f"{token} was left out of the prompt: describing it took longer than "
                    f"{describe_timeout:g} s (pass a smaller object or define _repr_llm_)"
                )
        rendered = cache[expression]
        if rendered is None:
            if token not in unresolved:
                unresolved.append(token)
            last_token_end = end
            continue
        remaining = max_total_chars - used  # omitted-value markers do not count
        if len(rendered.text) <= min(max_chars_per_value, remaining):
            text, cut = rendered.text, False
            used += len(text)
        elif remaining < _MIN_USEFUL and remaining < max_chars_per_value:
            omitted += 1
            text = f"[… omitted: the {max_total_chars:,}-character context limit was reached"
            if omitted > _MAX_OMISSION_MARKERS:
                text += "; later references are left as written"
            text += "]"
            cut = True
        else:
            text, cut = truncate(rendered.text, min(max_chars_per_value, remaining))
            used += len(text)
        out.append(template[pos:start])
        if named:
            inline, entry = _named(expression, rendered, text)
            out.append(inline)
            if entry is not None:
                section.setdefault(entry, entry)  # each value once
        else:
            out.append(text)
        pos = last_token_end = end
        chunks.append(
            ContextChunk(
                token=token,
                expression=expression,
                kind=rendered.kind,
                summary=rendered.summary,
                chars=len(text),
                truncated=cut or rendered.timed_out,
                timed_out=rendered.timed_out,
            )
        )
    out.append(template[pos:])
    if section:
        out.append("\n\n---\n" + VALUES_HEADING + "\n\n" + "\n\n".join(section.values()))
    if omitted:
        note = (
            f"the interpolated values reached the {max_total_chars:,}-character context limit: "
            f"{omitted:,} reference(s) were replaced by an omission note"
        )
        if left_as_written:
            note += f" and {left_as_written:,} later one(s) were left as written"
        warnings.append(note)
    return Interpolation(text="".join(out), chunks=chunks, unresolved=unresolved, warnings=warnings)


def _named(expression: str, rendered: _Rendered, text: str) -> tuple[str, str | None]:
    """(what replaces the reference in the sentence, its entry after the text or ``None``)."""
    absolute, detail = _name_and_detail(expression, rendered.kind, rendered.summary)
    name = code_span(absolute)
    if (
        rendered.kind not in ("input", "error")
        and text == rendered.text
        and "\n" not in text
        and len(text) <= _INLINE_MAX
    ):
        return f"{name} = {code_span(text)} ({detail.split(':', 1)[0]})", None
    if text.startswith("[… omitted:"):  # the total limit: no value, only the marker
        return f"{name} ({detail}; see below)", f"{name} ({detail}): {text}"
    info = "python" if rendered.kind == "input" else "text"
    return f"{name} ({detail}; see below)", f"{name} ({detail}):\n{fence(text, info)}"


def _reference_position(text: str, start: int, end: int, last_token_end: int) -> bool:
    if start > 0:
        before = text[start - 1]
        if before in _BLOCKING_PREFIX:
            return False
        if before == "}" and start != last_token_end:
            return False
    return not (end < len(text) and text[end] == "}")


@dataclass(frozen=True)
class _Rendered:
    kind: ContextKind
    text: str
    """The full text (before any cap), free of surrogates."""
    summary: str
    timed_out: bool = False


def _render_within(
    resolver: _Resolver,
    expression: str,
    max_chars: int,
    max_rows: int,
    seconds: float | None,
) -> _Rendered | None:
    """:func:`_render` bounded by ``seconds``; a placeholder when it took longer."""
    outcome = call_with_time_limit(
        lambda: _render(resolver, expression, max_chars, max_rows), seconds
    )
    if not isinstance(outcome, TimedOut):
        return outcome
    text = (
        f"<value of {expression}: describing it took longer than {outcome.seconds:g} s; "
        "pass a smaller object or define _repr_llm_>"
    )
    summary = f"{expression}: describing it took longer than {outcome.seconds:g} s"
    return _Rendered(_kind_of(expression), text, summary, timed_out=True)


def _kind_of(expression: str) -> ContextKind:
    """The kind a reference has by its spelling alone (for a value that was never resolved)."""
    history = _HISTORY.fullmatch(expression)
    if history:
        return _HISTORY_KIND[history.group(1)]
    return "attribute" if "." in expression else "variable"


def _render(
    resolver: _Resolver, expression: str, max_chars: int, max_rows: int
) -> _Rendered | None:
    try:
        kind, value, summary = resolver.resolve(expression)
    except _Unresolved:
        return None
    except Exception:  # pragma: no cover - resolve() converts lookup failures already
        return None
    if kind == "error":
        text = _error_text(value)
    elif isinstance(value, str):
        text = value  # inserted as written (the caller caps it)
    else:
        text = render(value, max_rows=max_rows, max_chars=max_chars)
    summary = summary if summary is not None else short_summary(value)
    return _Rendered(kind, replace_lone_surrogates(text), replace_lone_surrogates(summary))


def _error_text(value: Any) -> str:
    """Error text without terminal colors; an exception object is formatted with its traceback."""
    try:
        if isinstance(value, BaseException):
            text = "".join(traceback.format_exception(type(value), value, value.__traceback__))
        else:
            text = value if isinstance(value, str) else str(value)
    except Exception:
        text = render(value)
    return _ANSI.sub("", text)
