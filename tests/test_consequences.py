"""The static analysis behind a card's Changes (``context.consequences``) and its lines
(``context.changes_text``, ``transcript.changes``): one test per kind of effect."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from dsh_notebook.context.changes_text import change_lines, changes_of
from dsh_notebook.context.consequences import FileEffect, Mutation, OutsideEffect, analyse
from dsh_notebook.transcript.bounds import CHANGE_ITEMS, CHANGE_KINDS
from dsh_notebook.transcript.changes import bounded_changes, changes_markdown, changes_plain


def _clean(frame: Any) -> Any:
    return frame


_clean.__module__ = "__main__"


class _Box:
    def go(self) -> None: ...


_Box.__module__ = "__main__"


@pytest.fixture
def ns() -> dict[str, Any]:
    return {
        "sales": pd.DataFrame({"a": range(1200), "b": 1, "c": 2, "d": 3}),
        "arr": np.zeros(3),
        "items": [1, 2],
        "d": {"k": 1},
        "s": {1},
        "x": 5,
        "name": "out.csv",
        "out": Path("/tmp/o.csv"),
        "clean": _clean,
        "box": _Box(),
        "pd": pd,
        "np": np,
    }


def test_rebinds_existing_names_and_creates_new_ones(ns: dict[str, Any]) -> None:
    found = analyse("sales = sales[sales.a > 1]\ntotal = 3\nx = x + 1\nfor i in items: pass", ns)
    assert found.rebinds == ("sales", "x")
    assert found.creates == ("total", "i")
    assert not found.mutates and not found.files
    lines = dict(change_lines(found, ns))
    assert lines["rebinds"] == (
        "Rebinds sales (now DataFrame: 1,200 rows x 4 columns); x (now int: 5)"
    )
    assert lines["creates"] == "Creates total; i"


def test_a_name_bound_twice_is_reported_once_and_a_reimport_is_no_change(
    ns: dict[str, Any],
) -> None:
    found = analyse("import pandas as pd\nimport json\ny = 1\ny = 2\ndef f(): pass", ns)
    assert found.creates == ("json", "y", "f")
    assert found.rebinds == ()


@pytest.mark.parametrize(
    ("code", "name", "how"),
    [
        ("sales['e'] = 1", "sales", "sales[…] = …"),
        ("sales.loc[0, 'a'] = 1", "sales", "sales.loc[…] = …"),
        ("box.size = 3", "box", "box.size = …"),
        ("del d['k']", "d", "del d['k']"),
        ("items += [3]", "items", "items += …"),
        ("arr *= 2", "arr", "arr *= …"),
        ("sales.dropna(inplace=True)", "sales", ".dropna(…, inplace=True)"),
        ("sales.fillna(0, inplace=True)", "sales", ".fillna(…, inplace=True)"),
        ("items.append(3)", "items", ".append()"),
        ("d.update(a=1)", "d", ".update()"),
        ("s.add(2)", "s", ".add()"),
        ("items.sort()", "items", ".sort()"),
        ("d.pop('k')", "d", ".pop()"),
        ("arr.fill(1)", "arr", ".fill()"),
        ("setattr(box, 'size', 1)", "box", "setattr(box, 'size', 1)"),
        ("import random\nrandom.shuffle(items)", "items", "random.shuffle(items)"),
    ],
)
def test_mutations_in_place(ns: dict[str, Any], code: str, name: str, how: str) -> None:
    found = analyse(code, ns)
    assert found.mutates == (Mutation(name, how),)
    assert name not in found.rebinds


def test_an_immutable_value_is_rebound_not_mutated_and_inplace_false_changes_nothing(
    ns: dict[str, Any],
) -> None:
    found = analyse("x += 1\nsales.dropna(inplace=False)\nnew = []\nnew.append(1)", ns)
    assert found.rebinds == ("x",) and found.mutates == ()


def test_deletes(ns: dict[str, Any]) -> None:
    found = analyse("del x, items\ntmp = 1\ndel tmp", ns)
    assert found.deletes == ("x", "items")
    assert dict(change_lines(found, ns))["deletes"] == (
        "Deletes x (now int: 5); items (now list: 2 items)"
    )


@pytest.mark.parametrize(
    ("code", "effect"),
    [
        ("open('log.txt', 'a').write('x')", FileEffect("appends to", "log.txt", "open('log.txt', 'a')")),
        ("with open('r.txt', mode='w') as f: pass", FileEffect("writes", "r.txt", "open('r.txt', mode='w')")),
        ("open('new', 'x')", FileEffect("creates", "new", "open('new', 'x')")),
        ("sales.to_csv('report.csv')", FileEffect("writes", "report.csv", "sales.to_csv('report.csv')")),
        ("sales.to_parquet(path='p.parquet')", FileEffect("writes", "p.parquet", "sales.to_parquet(path='p.parquet')")),
        ("sales.to_excel(name)", FileEffect("writes", "out.csv", "sales.to_excel(name)")),
        ("import matplotlib.pyplot as plt\nplt.savefig('f.png')", FileEffect("writes", "f.png", "plt.savefig('f.png')")),
        ("np.save('a.npy', arr)", FileEffect("writes", "a.npy", "np.save('a.npy', arr)")),
        ("out.write_text('hi')", FileEffect("writes", "/tmp/o.csv", "out.write_text('hi')")),
        ("from pathlib import Path\nPath('a') / 'b.txt'\n(Path('a') / 'b.txt').unlink()", FileEffect("deletes", "a/b.txt", "(Path('a') / 'b.txt').unlink()")),
        ("import os\nos.remove('old.csv')", FileEffect("deletes", "old.csv", "os.remove('old.csv')")),
        ("import shutil\nshutil.move('a', 'b')", FileEffect("moves", "a", "shutil.move('a', 'b')")),
        ("import shutil as sh\nsh.rmtree('build')", FileEffect("deletes", "build", "sh.rmtree('build')")),
        ("sales.to_csv(f'{x}.csv')", FileEffect("writes", None, "sales.to_csv(f'{x}.csv')")),
        ("%%writefile notes.md\nhello", FileEffect("writes", "notes.md", "%%writefile")),
    ],
)  # fmt: skip
def test_files(ns: dict[str, Any], code: str, effect: FileEffect) -> None:
    assert analyse(code, ns).files == (effect,)


def test_reading_a_file_is_no_effect(ns: dict[str, Any]) -> None:
    assert analyse("t = open('a.txt').read()\ndf = pd.read_csv('a.csv')", ns).files == ()


@pytest.mark.parametrize(
    ("code", "effect"),
    [
        ("!ls -la", OutsideEffect("process", "!ls -la")),
        ("files = !ls", OutsideEffect("process", "!ls")),
        ("%pip install polars", OutsideEffect("install", "%pip install polars")),
        ("!pip install -q polars", OutsideEffect("install", "!pip install -q polars")),
        ("%conda install numpy", OutsideEffect("install", "%conda install numpy")),
        ("import subprocess as sp\nsp.run(['ls'])", OutsideEffect("process", "sp.run(['ls'])")),
        ("import subprocess\nsubprocess.run(['pip', 'install', 'x'])",
         OutsideEffect("install", "subprocess.run(['pip', 'install', 'x'])")),
        ("import os\nos.system('make')", OutsideEffect("process", "os.system('make')")),
        ("from subprocess import check_output\ncheck_output('ls')",
         OutsideEffect("process", "check_output('ls')")),
        ("import requests\nrequests.get('https://x.org')",
         OutsideEffect("network", "requests.get('https://x.org')")),
        ("import httpx\nhttpx.post('https://x.org')", OutsideEffect("network", "httpx.post('https://x.org')")),
        ("from urllib.request import urlopen\nurlopen('https://x.org')",
         OutsideEffect("network", "urlopen('https://x.org')")),
        ("import socket\nsocket.create_connection(('h', 1))",
         OutsideEffect("network", "socket.create_connection(('h', 1))")),
        ("pd.read_csv('https://x.org/a.csv')", OutsideEffect("network", "pd.read_csv('https://x.org/a.csv')")),
        ("%%bash\nls\nrm x", OutsideEffect("process", "%%bash: ls rm x")),
    ],
)  # fmt: skip
def test_processes_network_and_installs(
    ns: dict[str, Any], code: str, effect: OutsideEffect
) -> None:
    assert analyse(code, ns).outside == (effect,)


@pytest.mark.parametrize(
    ("code", "unknown"),
    [
        ("exec(src)", "exec(…) runs code built at run time"),
        ("eval('1')", "eval(…) runs code built at run time"),
        ("globals()['y'] = 2", "globals() gives the code every name of the notebook"),
        ("setattr(box, key, 1)", "setattr(box, key, 1): sets an attribute named at run time"),
        ("from math import *", "from math import *: may rebind any name of the notebook"),
        ("clean(sales)", "calls clean(sales): may change sales"),
        ("clean(3)", "calls clean(3): what it changes is not analysed"),
        ("box.go()", "calls box.go(): may change box"),
        ("%run other.py", "%run: a magic; what it changes is not analysed"),
        ("%%javascript\nalert(1)", "%%javascript: the cell is not Python; what it does is not analysed"),
        ("get_ipython().run_cell('x = 1')",
         "get_ipython().run_cell('x = 1'): runs IPython code or commands"),
    ],
)  # fmt: skip
def test_cannot_tell(ns: dict[str, Any], code: str, unknown: str) -> None:
    assert analyse(code, ns).unknown == (unknown,)


def test_functions_the_code_defines(ns: dict[str, Any]) -> None:
    code = (
        "def f(items):\n    items.append(1)\n    global x\n    x = 5\n    local = 1\n"
        "    open('z', 'w')\nf(items)"
    )
    found = analyse(code, ns)
    assert found.creates == ("f",)
    assert found.rebinds == ("x",)  # declared global
    assert found.mutates == ()  # a parameter, not the notebook's list
    assert found.files == (FileEffect("writes", "z", "open('z', 'w')"),)
    assert found.unknown == ("calls f(items): may change items",)


def test_code_that_does_not_parse_says_so(ns: dict[str, Any]) -> None:
    found = analyse("x = (", ns)
    assert found.unparsed == "line 1: '(' was never closed"
    assert changes_of("x = (", ns) == (
        ("unparsed", "Does not parse (line 1: '(' was never closed): what it would change is "
                     "not known"),
    )  # fmt: skip


def test_nothing_found_says_so_and_ipython_lines_stay_python(ns: dict[str, Any]) -> None:
    assert changes_of("print(sales.shape)\n%matplotlib inline\nsales?", ns) == (
        ("none", "Changes nothing the analysis can see: no existing name, file, process or "
                 "network"),
    )  # fmt: skip
    assert analyse("%%time\ny = 1", ns).creates == ("y",)


def test_the_analysis_never_runs_the_code(ns: dict[str, Any], tmp_path: Path) -> None:
    target = tmp_path / "ran"
    analyse(f"open({str(target)!r}, 'w').write('x')\nitems.append(9)", ns)
    assert not target.exists() and ns["items"] == [1, 2]


def test_a_slow_description_falls_back_to_the_type_name() -> None:
    class Slow:
        def __len__(self) -> int:
            time.sleep(2)
            return 1

        def __repr__(self) -> str:
            time.sleep(2)
            return "slow"

    start = time.monotonic()
    lines = changes_of("v = 1", {"v": Slow()}, describe_seconds=0.2)
    assert time.monotonic() - start < 1.5
    assert lines == (("rebinds", "Rebinds v (now Slow)"),)


def test_uncopyable_and_odd_values_never_break_it() -> None:
    conn = sqlite3.connect(":memory:")

    class Odd:
        def __eq__(self, other: object) -> bool:
            raise RuntimeError("no")

    found = analyse("conn.close()\nodd.x = 1\nconn = None", {"conn": conn, "odd": Odd()})
    assert found.rebinds == ("conn",) and found.mutates == (Mutation("odd", "odd.x = …"),)


def test_lines_are_bounded(ns: dict[str, Any]) -> None:
    code = "\n".join(f"v{i} = {i}" for i in range(30))
    (kind, text), = changes_of(code, ns)  # fmt: skip
    assert kind == "creates"
    assert text.endswith(f"; and {30 - CHANGE_ITEMS} more")
    kept = bounded_changes([("creates", "x" * 5000)] * 200 + [("bogus", "y")])
    assert len(kept) == 121 and all(len(line["text"]) < 700 for line in kept)
    assert kept[-1] == {"kind": "unknown", "text": "Cannot tell: 80 more lines left out"}


def test_renderings_escape_and_mark_cells() -> None:
    lines = bounded_changes([("cell", "cell 2 · id ab12"), ("files", "Files: writes <b>*x*</b>")])
    markdown = changes_markdown(lines)
    assert markdown is not None
    assert markdown.startswith("**Changes**\n\n- **cell 2 · id ab12**\n- Files: writes ")
    assert "<b>" not in markdown and "*x*" not in markdown
    assert changes_plain(lines, "  ") == [
        "  Changes:",
        "    cell 2 · id ab12:",
        "    - Files: writes <b>*x*</b>",
    ]
    assert {kind for kind, _ in changes_of("x = (", {})} <= set(CHANGE_KINDS)


def test_a_long_literal_path_keeps_its_file_name() -> None:
    """A path is cut at its start: the file's name is what the person needs to read."""
    folder = "/tmp/" + "a-very-long-folder-name/" * 6
    found = analyse(f"df.to_csv('{folder}report.csv')", {"df": []})
    assert any(f.path is not None and f.path.endswith("/report.csv") for f in found.files), found
