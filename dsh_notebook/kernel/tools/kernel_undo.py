"""The kernel's half of "Undo this run": the values approved code changed, given back.

Before approved code runs (``run_python``, "Edit, then run", each cell of an approved
``run_cells`` as the page runs it: :meth:`KernelUndo.expect`, :meth:`KernelUndo.cell_started`),
:meth:`KernelUndo.before` reads
the code (:func:`~dsh_notebook.context.consequences.analyse`) and keeps each existing value it
rebinds, mutates or deletes (:func:`~dsh_notebook.context.keeping.keep_value`: pandas and numpy
copied, plain containers deep-copied, modules, functions and classes by reference) and notes the
names it creates; :meth:`KernelUndo.after` notes what each of those names holds once the code
ran. :meth:`KernelUndo.undo` gives a run back, its calls newest first: a kept value is bound to
its name again, a name the run created is removed, a name it deleted comes back — each only when
the name still holds what the run left there; a name the person rebound since is skipped and
named. Files, processes and network effects are not undone: the summary names them.

Bounds: the values kept by all runs together stay within ``memory()`` bytes (the
``undo_memory_mb`` setting): the oldest runs' values are dropped first, and their undo then says
so; a value over ``value_limit()`` bytes is not kept (named on the card before the click,
:func:`not_undoable`). Memory only: a kernel restart forgets every run (the undo says so).

Threads: :meth:`before`, :meth:`after` and :meth:`undo` touch the namespace and run on the
kernel's main thread; one lock guards the store, never held while a value is copied.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping, MutableMapping
from dataclasses import dataclass, field
from typing import Any

from ...context.consequences import Consequences, analyse
from ...context.keeping import Kept, NotKept, cannot_keep, keep_value, type_label

__all__ = ["CallKept", "KernelUndo", "KernelUndone", "UndoRecorder", "not_undoable"]

_ABSENT = object()
"""What a name held when it did not exist."""


def not_undoable(found: Consequences, namespace: Mapping[str, Any], limit: int) -> list[str]:
    """The existing values ``found`` says the code changes that undo could not keep, as
    ``conn (sqlite3.Connection)`` or ``big (ndarray: too large to keep: 2.0 GB, over 256 MB)``
    (for the card, before the click; copies nothing)."""
    named: list[str] = []
    for name in found.touched:
        try:
            value = namespace.get(name, _ABSENT)
        except Exception:
            continue
        if value is _ABSENT:
            continue
        reason = cannot_keep(value, limit)
        if reason is None:
            continue
        label = type_label(value)
        named.append(f"{name} ({label})" if reason == "cannot be copied" else
                     f"{name} ({label}: {reason})")  # fmt: skip
    return named


def _effects(found: Consequences) -> list[str]:
    """What undo cannot take back: ``wrote report.csv``, ``ran os.system('make')``…"""
    words = {"writes": "wrote", "appends to": "appended to", "creates": "created",
             "deletes": "deleted", "moves": "moved", "copies": "copied"}  # fmt: skip
    out = [f"{words[f.verb]} {f.path if f.path is not None else f.via}" for f in found.files]
    verbs = {"process": "ran", "network": "reached the network:", "install": "installed:"}
    out += [f"{verbs[o.kind]} {o.what}" for o in found.outside]
    return out


@dataclass
class CallKept:
    """What one approved call changed, as kept before it ran."""

    kept: dict[str, Kept] = field(default_factory=dict)
    """Existing values the code rebinds, mutates or deletes, kept."""
    not_kept: dict[str, str] = field(default_factory=dict)
    """Existing values it changes that could not be kept: name → why."""
    created: list[str] = field(default_factory=list)
    effects: list[str] = field(default_factory=list)
    after: dict[str, Any] = field(default_factory=dict)
    """What each name held right after the call (``_ABSENT``: deleted)."""
    done: bool = False

    @property
    def size(self) -> int:
        return sum(k.size for k in self.kept.values())


@dataclass
class KernelUndone:
    """What :meth:`KernelUndo.undo` did for one run."""

    restored: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    """``x (you changed it since)``."""
    not_kept: list[str] = field(default_factory=list)
    effects: list[str] = field(default_factory=list)
    dropped: bool = False
    """The run's values were dropped to stay within the memory bound."""
    known: bool = True
    """False: this kernel has no record of the run (a restart, or it changed nothing here)."""

    def lines(self) -> list[str]:
        """The summary, one line per part (``%dsh undo`` prints them)."""
        if not self.known:
            return ["kernel: nothing to give back (this kernel has no record of the run's "
                    "values: a kernel restart forgets them)"]  # fmt: skip
        out = []
        if self.restored:
            out.append("kernel: gave back " + ", ".join(self.restored))
        if self.removed:
            out.append("kernel: removed what the run created: " + ", ".join(self.removed))
        if self.skipped:
            out.append("kernel: left as they are: " + ", ".join(self.skipped))
        if self.not_kept:
            out.append("kernel: could not give back: " + ", ".join(self.not_kept))
        if self.dropped:
            out.append("kernel: some values of this run were dropped earlier to keep undo "
                       "within its memory bound (undo_memory_mb)")  # fmt: skip
        if not out:
            out.append("kernel: the run changed no value of the notebook")
        out += [f"not undone: {effect}" for effect in self.effects]
        return out


class KernelUndo:
    """One per kernel (see the module docstring)."""

    def __init__(self, memory: Callable[[], int], value_limit: Callable[[], int]) -> None:
        self.memory = memory
        self.value_limit = value_limit
        self._lock = threading.Lock()
        self._runs: OrderedDict[str, list[CallKept]] = OrderedDict()
        self._dropped: set[str] = set()
        self._anchors: dict[str, str] = {}
        self._expected: dict[str, tuple[str, str | None]] = {}
        """Cells an approved ``run_cells`` sent to the page: cell id → (run, anchor)."""
        self._current: CallKept | None = None
        self.log: list[str] = []
        """Notes of values dropped for the memory bound (newest last, at most 20)."""

    def before(
        self, run_id: str, code: str, namespace: Mapping[str, Any], anchor: str | None = None
    ) -> CallKept:
        """Keep what ``code`` will change (main thread, right before it runs); ``anchor``: the
        run's ``%%dsh`` cell (the page's "Undo this run" names it)."""
        found = analyse(code, namespace)
        call = CallKept(created=list(found.creates), effects=_effects(found))
        if anchor is not None:
            self._anchors[run_id] = anchor
        limit = self.value_limit()
        for name in found.touched:
            value = namespace.get(name, _ABSENT)
            if value is _ABSENT:
                continue
            kept = keep_value(value, limit)
            if isinstance(kept, NotKept):
                call.not_kept[name] = f"{name} ({type_label(value)}: {kept.reason})"
            else:
                call.kept[name] = kept
        with self._lock:
            calls = self._runs.pop(run_id, [])
            calls.append(call)
            self._runs[run_id] = calls  # newest last
            self._bound()
        return call

    def expect(self, run_id: str, anchor: str | None, cell_ids: list[str]) -> None:
        """An approved ``run_cells`` of run ``run_id`` is about to have the page run these
        cells: each one's values are kept when it starts (:meth:`cell_started`)."""
        with self._lock:
            self._expected.update({cell_id: (run_id, anchor) for cell_id in cell_ids})

    def forget(self, cell_ids: list[str]) -> None:
        """The page answered the ``run_cells``: a later run of these cells is the person's."""
        with self._lock:
            for cell_id in cell_ids:
                self._expected.pop(cell_id, None)

    def cell_started(self, info: Any, namespace: Mapping[str, Any]) -> None:
        """``pre_run_cell`` (main thread): a cell an approved ``run_cells`` runs has its values
        kept, as a ``run_python`` call's are."""
        cell_id, raw = getattr(info, "cell_id", None), getattr(info, "raw_cell", None)
        with self._lock:
            entry = self._expected.pop(cell_id, None) if isinstance(cell_id, str) else None
        self._current = None
        if entry is not None and isinstance(raw, str):
            self._current = self.before(entry[0], raw, namespace, entry[1])

    def cell_finished(self, namespace: Mapping[str, Any]) -> None:
        """``post_run_cell`` (main thread): what the kept cell's names hold now."""
        current, self._current = self._current, None
        if current is not None:
            self.after(current, namespace)

    def after(self, call: CallKept, namespace: Mapping[str, Any]) -> None:
        """Note what the changed names hold now (main thread, right after the code ran)."""
        for name in [*call.kept, *call.created]:
            call.after[name] = namespace.get(name, _ABSENT)
        call.done = True

    def _bound(self) -> None:
        """Drop the oldest runs' values until all fit (under the lock)."""
        budget = max(0, self.memory())
        total = sum(c.size for calls in self._runs.values() for c in calls)
        for run_id in list(self._runs):
            if total <= budget:
                break
            for call in self._runs[run_id]:
                if total <= budget:
                    break
                if call.kept:
                    total -= call.size
                    names = ", ".join(call.kept)
                    call.not_kept.update({n: f"{n} (dropped: undo_memory_mb)" for n in call.kept})
                    call.kept = {}
                    self._dropped.add(run_id)
                    self.log.append(f"run {run_id}: dropped {names} to stay within undo's "
                                    "memory bound")  # fmt: skip
                    del self.log[:-20]

    def known(self, run_id: str) -> bool:
        with self._lock:
            return run_id in self._runs

    def find(self, run: str | None = None, *, anchor: str | None = None) -> str | None:
        """The newest run with kept values whose id starts with ``run`` / started in cell
        ``anchor`` (neither: the newest of all), or ``None``."""
        with self._lock:
            for run_id in reversed(self._runs):
                if run is not None and not run_id.startswith(run):
                    continue
                if anchor is not None and self._anchors.get(run_id) != anchor:
                    continue
                return run_id
        return None

    def held(self) -> int:
        """Bytes kept now, all runs together."""
        with self._lock:
            return sum(c.size for calls in self._runs.values() for c in calls)

    def undo(self, run_id: str, namespace: MutableMapping[str, Any]) -> KernelUndone:
        """Give run ``run_id``'s values back, its calls newest first (main thread); the run is
        forgotten (undoing twice does nothing the second time)."""
        with self._lock:
            calls = self._runs.pop(run_id, None)
            self._anchors.pop(run_id, None)
            dropped = run_id in self._dropped
            self._dropped.discard(run_id)
        done = KernelUndone(dropped=dropped, known=calls is not None)
        given: dict[str, Any] = {}  # what this undo bound each name to (a later call's value)

        def untouched(name: str, call: CallKept) -> bool:
            now = namespace.get(name, _ABSENT)
            return now is call.after.get(name, _ABSENT) or (name in given and now is given[name])

        for call in reversed(calls or []):
            if not call.done:
                continue
            for name in call.created:
                if name in call.kept or namespace.get(name, _ABSENT) is _ABSENT:
                    continue
                if untouched(name, call):
                    del namespace[name]
                    given[name] = _ABSENT
                    done.removed.append(name)
                else:
                    done.skipped.append(f"{name} (you changed it since)")
            for name, kept in call.kept.items():
                if not untouched(name, call):
                    done.skipped.append(f"{name} (you changed it since)")
                    continue
                namespace[name] = given[name] = kept.value
                done.restored.append(name)
            done.not_kept += [why for why in call.not_kept.values()]
            done.effects += call.effects
        for part in (done.restored, done.removed, done.skipped, done.not_kept, done.effects):
            part[:] = list(dict.fromkeys(part))
        return done


class _UndoSink:
    """A call's sink with a ``before`` the notebook server calls on the main thread right
    before the code runs: the values are kept then, and what the names hold after, in
    ``__call__``; the recorder's own sink (the agent cell, the figures) follows."""

    def __init__(
        self,
        inner: Callable[[Any], str | None] | None,
        undo: KernelUndo,
        run_id: str,
        anchor: str | None,
        code: str,
        namespace: MutableMapping[str, Any],
    ) -> None:
        self._inner, self._undo, self._run_id, self._anchor = inner, undo, run_id, anchor
        self._code, self._namespace = code, namespace
        self._call: CallKept | None = None
        self.wants_outputs = inner is not None
        """Only the recorder's own sink uses the call's cell outputs (the server reads this)."""

    def before(self) -> None:
        self._call = self._undo.before(self._run_id, self._code, self._namespace, self._anchor)

    def __call__(self, result: Any) -> str | None:
        if self._call is not None:
            self._undo.after(self._call, self._namespace)
        return self._inner(result) if self._inner is not None else None


class UndoRecorder:
    """The notebook server's recorder in a kernel: the agent cells' (``inner``), and before
    each approved call the values it changes kept for undo (:class:`KernelUndo`)."""

    def __init__(self, inner: Any, undo: KernelUndo, shell: Any) -> None:
        self._inner, self._undo, self._shell = inner, undo, shell

    def __call__(self, code: str, owner: Any) -> Callable[[Any], str | None] | None:
        sink = self._inner(code, owner) if self._inner is not None else None
        namespace = getattr(self._shell, "user_ns", None)
        run = getattr(owner, "run", None)
        if run is None or namespace is None:
            return sink
        return _UndoSink(sink, self._undo, run.run_id, run.cell_id, code, namespace)
