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
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .code_walk import Walker
from .effects import FileEffect, Mutation, OutsideEffect, short
from .ipython_lines import prepass

__all__ = [
    "Consequences",
    "FileEffect",
    "Mutation",
    "OutsideEffect",
    "analyse",
]


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


def analyse(code: str, namespace: Mapping[str, Any]) -> Consequences:
    """What ``code`` will change in ``namespace`` and outside it (module docstring). Never
    raises; never runs ``code``."""
    try:
        return _analyse(code, namespace)
    except Exception as exc:  # a bug of ours must not cost the card
        return Consequences(unknown=(f"the analysis failed ({type(exc).__name__})",))


def _analyse(code: str, namespace: Mapping[str, Any]) -> Consequences:
    pre = prepass(code)
    try:
        tree = ast.parse(pre.source, "<code>", "exec")
    except SyntaxError as exc:
        where = f"line {exc.lineno}: " if exc.lineno else ""
        return Consequences(unparsed=short(f"{where}{exc.msg}", 120))
    except (ValueError, MemoryError, RecursionError) as exc:
        return Consequences(unparsed=short(f"{type(exc).__name__}: {exc}", 120))
    walker = Walker(namespace, pre.source)
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
