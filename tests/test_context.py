"""interpolate(): only resolving references are replaced; every other brace is kept verbatim."""

from __future__ import annotations

import _thread
import ast
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from dsh_notebook.context.interpolate import ContextChunk, Interpolation, interpolate
from dsh_notebook.context.time_limit import TimedOut, call_with_time_limit


class Node:
    def __init__(self, **attrs: Any) -> None:
        self.__dict__.update(attrs)


class Broken:
    calls = 0

    @property
    def bad(self) -> int:
        raise RuntimeError("property failed")

    @property
    def counted(self) -> str:
        Broken.calls += 1
        return "counted"


@pytest.fixture
def ns() -> dict[str, Any]:
    return {
        "x": 1,
        "k": "K",
        "v": "V",
        "d": {"a": 1},
        "a": "A",
        "b": "B",
        "i": "I",
        "name": "Ada",
        "df": pd.DataFrame({"a": [1, 2, 3]}),
        "obj": Node(inner=Node(label="deep"), _secret="hidden"),
        "_private": "hidden",
        "In": ["", "x = 1", "df = load()", "%%dsh …"],
        "Out": {2: pd.DataFrame({"revenue": [10.5, 20.25]})},
    }


# --- verbatim ----------------------------------------------------------------------------------

VERBATIM = [
    "{k: v for k, v in d.items()}",
    "{}",
    "{ x }",
    "{ x}",
    "{x }",
    '{"a": 1}',
    '{"a": {"b": 1}}',
    "{x!r}",
    "{x:>10}",
    "{x=}",
    "{1, 2, 3}",
    "{a, b}",
    "\\frac{a}{b}",
    "x_{i} + y^{i}",
    "\\text{name}",
    "echo ${x} $x",
    "{x",
    "x}",
    "}{x}{",
    "{{x}",
    "{x}}",
    "{{{x}}}",
    "{{ x }}",
    "{{}}",
    "{{k: v}}",
    "{x.}",
    "{.x}",
    "{x..y}",
    "{1x}",
    "{x[0]}",
    "{x()}",
    "{d['a']}",
    "{In[1].strip}",
    "{In[ 1 ]}",
    "{In[x]}",
    '{"a": {x}}',
    "```python\nresult = {k: v for k, v in d.items() if v}\n```",
]


@pytest.mark.parametrize("template", VERBATIM)
def test_non_references_stay_verbatim(template: str, ns: dict[str, Any]) -> None:
    result = interpolate(template, ns)
    assert result.text == template
    assert result.chunks == []
    assert result.unresolved == []


def test_dict_comprehension_survives_next_to_a_reference(ns: dict[str, Any]) -> None:
    template = 'Given {name}, explain {k: v for k, v in d.items()} and {"a": 1}.'
    result = interpolate(template, ns)
    assert result.text == 'Given Ada, explain {k: v for k, v in d.items()} and {"a": 1}.'
    assert [c.token for c in result.chunks] == ["{name}"]


# --- resolution --------------------------------------------------------------------------------


def test_unresolved_names_stay_verbatim_and_are_listed_once(ns: dict[str, Any]) -> None:
    result = interpolate("{missing} and {obj.nope} and {missing} and {name}", ns)
    assert result.text == "{missing} and {obj.nope} and {missing} and Ada"
    assert result.unresolved == ["{missing}", "{obj.nope}"]


def test_strings_are_inserted_as_is(ns: dict[str, Any]) -> None:
    ns["code"] = "print('{x}')\n"
    result = interpolate("Run {code}", ns)
    assert result.text == "Run print('{x}')\n"  # not quoted, braces in values not re-scanned
    (chunk,) = result.chunks
    assert chunk == ContextChunk(
        token="{code}",
        expression="code",
        kind="variable",
        summary="str: 13 chars",
        chars=13,
        truncated=False,
    )


def test_non_strings_are_described(ns: dict[str, Any]) -> None:
    result = interpolate("Data: {df}", ns)
    assert result.text.startswith("Data: DataFrame: 3 rows x 1 columns\n")
    assert result.chunks[0].summary == "DataFrame: 3 rows x 1 columns"
    assert result.chunks[0].chars == len(result.text) - len("Data: ")


def test_attribute_chains(ns: dict[str, Any]) -> None:
    result = interpolate("{obj.inner.label} / {df.shape} / {df.columns.size}", ns)
    assert result.text == "deep / (3, 1) / 1"
    assert [c.kind for c in result.chunks] == ["attribute"] * 3
    assert [c.expression for c in result.chunks] == [
        "obj.inner.label",
        "df.shape",
        "df.columns.size",
    ]


def test_private_names_are_not_resolved(ns: dict[str, Any]) -> None:
    template = "{_private} {obj._secret} {obj.__class__} {__builtins__} {obj.inner._x}"
    ns["__builtins__"] = {}
    result = interpolate(template, ns)
    assert result.text == template
    assert "hidden" not in result.text
    assert result.unresolved == template.split()


def test_property_that_raises_is_unresolved_and_value_is_read_once(ns: dict[str, Any]) -> None:
    ns["thing"] = Broken()
    Broken.calls = 0
    result = interpolate("{thing.bad} {thing.counted} {thing.counted}", ns)
    assert result.text == "{thing.bad} counted counted"
    assert result.unresolved == ["{thing.bad}"]
    assert Broken.calls == 1
    assert len(result.chunks) == 2


def test_double_braces_escape_a_reference(ns: dict[str, Any]) -> None:
    result = interpolate("literal {{name}} {{missing}} {{In[1]}}, value {name}", ns)
    assert result.text == "literal {name} {missing} {In[1]}, value Ada"
    assert result.unresolved == []
    assert [c.token for c in result.chunks] == ["{name}"]


def test_adjacent_references_and_non_ascii_text(ns: dict[str, Any]) -> None:
    assert interpolate("{a}{b}", ns).text == "AB"
    assert interpolate("{missing}{b}", ns).text == "{missing}B"
    assert interpolate("请看{name}的数据", ns).text == "请看Ada的数据"
    assert interpolate("({name}), '{name}', `{name}`", ns).text == "(Ada), 'Ada', `Ada`"


def test_latex_stays_verbatim_even_when_names_exist(ns: dict[str, Any]) -> None:
    template = "$\\frac{a}{b}$ and $x_{i}$ but {a} here"
    result = interpolate(template, ns)
    assert result.text == "$\\frac{a}{b}$ and $x_{i}$ but A here"
    assert result.unresolved == []


def test_namespace_errors_make_references_unresolved() -> None:
    class Exploding(Mapping[str, Any]):
        def __getitem__(self, key: str) -> Any:
            raise RuntimeError("boom")

        def __contains__(self, key: object) -> bool:
            raise RuntimeError("boom")

        def __iter__(self) -> Iterator[str]:
            return iter(())

        def __len__(self) -> int:
            return 0

    result = interpolate("{x} {In[-1]} {Out[1]}", Exploding())
    assert result.text == "{x} {In[-1]} {Out[1]}"
    assert result.unresolved == ["{x}", "{In[-1]}", "{Out[1]}"]


# --- history -----------------------------------------------------------------------------------


def test_in_negative_without_current_cell_is_last_entry(ns: dict[str, Any]) -> None:
    result = interpolate("{In[-1]}|{In[1]}|{In[-3]}", ns)
    assert result.text == "%%dsh …|x = 1|x = 1"
    assert [c.kind for c in result.chunks] == ["input"] * 3
    assert result.chunks[1].summary == "In[1]: 1 line of code"


def test_in_negative_with_current_cell_skips_the_running_cell(ns: dict[str, Any]) -> None:
    # While cell 3 (`%%dsh …`) runs, IPython has already appended it to In.
    result = interpolate("{In[-1]} / {In[-2]} / {In[3]} / {In[-3]}", ns, current_cell=3)
    assert result.text == "df = load() / x = 1 / {In[3]} / {In[-3]}"
    assert result.unresolved == ["{In[3]}", "{In[-3]}"]  # the current cell; before cell 1


def test_out_of_range_and_empty_inputs_are_unresolved(ns: dict[str, Any]) -> None:
    result = interpolate("{In[0]} {In[99]} {In[-99]} {Out[1]} {Err[1]}", ns)
    assert result.text == "{In[0]} {In[99]} {In[-99]} {Out[1]} {Err[1]}"
    assert len(result.unresolved) == 5


def test_out_dataframe(ns: dict[str, Any]) -> None:
    ns["Out"][3] = pd.DataFrame({"region": ["n", "s"], "revenue": [1.5, 2.5]})
    result = interpolate("Explain {Out[3]} please", ns)
    (chunk,) = result.chunks
    assert chunk.kind == "output"
    assert chunk.summary == "Out[3]: DataFrame: 2 rows x 2 columns"
    assert "DataFrame: 2 rows x 2 columns" in result.text
    assert "revenue" in result.text
    assert result.text.endswith(" please")


def test_out_negative_names_the_same_cell_as_in(ns: dict[str, Any]) -> None:
    ns["Out"] = {2: 42}
    result = interpolate("{In[-1]} -> {Out[-1]}", ns, current_cell=3)
    assert result.text == "df = load() -> 42"


def test_err_from_namespace_and_kwarg(ns: dict[str, Any]) -> None:
    traceback_text = (
        "\x1b[0;31mTraceback (most recent call last)\x1b[0m\n"
        "  File cell 2\n"
        "\x1b[0;31mZeroDivisionError\x1b[0m: division by zero\n"
    )
    ns["Err"] = {2: traceback_text}
    result = interpolate("Fix {Err[2]}", ns)
    (chunk,) = result.chunks
    assert chunk.kind == "error"
    assert chunk.summary == "Err[2]: ZeroDivisionError: division by zero"
    assert result.text == (
        "Fix Traceback (most recent call last)\n"
        "  File cell 2\n"
        "ZeroDivisionError: division by zero\n"
    )
    from_kwarg = interpolate("{Err[2]} {Err[-1]}", ns, errors={2: "KeyError: 'a'"}, current_cell=3)
    assert from_kwarg.text == "KeyError: 'a' KeyError: 'a'"


def test_err_exception_object_is_formatted() -> None:
    try:
        {}["missing"]
    except KeyError as exc:
        error = exc
    result = interpolate("{Err[1]}", {}, errors={1: error})
    assert "Traceback" in result.text
    assert result.text.rstrip().endswith("KeyError: 'missing'")
    assert result.chunks[0].summary == "Err[1]: KeyError: 'missing'"


def test_err_without_in_counts_back_from_the_last_known_cell() -> None:
    errors = {4: "ValueError: bad"}
    assert interpolate("{Err[-1]}", {}, errors=errors).text == "ValueError: bad"
    # a later output moves "the last cell" on: Err[-1] is now cell 6, which had no error
    assert interpolate("{Err[-1]}", {"Out": {6: 1}}, errors=errors).text == "{Err[-1]}"


# --- caps --------------------------------------------------------------------------------------


def test_per_value_cap(ns: dict[str, Any]) -> None:
    ns["big"] = "z" * 10_000
    result = interpolate("<{big}>", ns, max_chars_per_value=100)
    (chunk,) = result.chunks
    assert chunk.truncated
    assert chunk.chars <= 100
    assert len(result.text) == chunk.chars + 2
    assert "characters omitted …]" in result.text


def test_ten_dataframes_hit_the_total_cap() -> None:
    rng = np.random.default_rng(1)
    namespace = {
        f"df{i}": pd.DataFrame(rng.random((200, 8)), columns=[f"col{j}" for j in range(8)])
        for i in range(10)
    }
    one = interpolate("{df0}", namespace).chunks[0].chars  # every frame describes to this size
    assert 1000 < one < 4000
    total = 3 * one + one // 2  # room for three and a half
    template = "\n".join(f"Table {i}: {{df{i}}}" for i in range(10))
    result = interpolate(template, namespace, max_chars_per_value=4000, max_total_chars=total)

    assert result.unresolved == []
    assert [c.expression for c in result.chunks] == [f"df{i}" for i in range(10)]
    assert [c.truncated for c in result.chunks] == [False] * 3 + [True] * 7
    assert [c.chars for c in result.chunks[:3]] == [one] * 3
    assert result.chunks[3].chars == total - 3 * one  # the fourth is cut to what is left
    assert sum(c.chars for c in result.chunks[:4]) == total
    lines = result.text.split("\n")
    assert lines[-1] == f"Table 9: [… omitted: the {total:,}-character context limit was reached]"
    assert result.text.count("context limit was reached") == 6
    assert result.text.count("characters omitted …]") == 1
    for i in range(10):
        assert f"Table {i}: " in result.text


def test_total_cap_leaves_short_values_that_still_fit(ns: dict[str, Any]) -> None:
    ns["big"] = "b" * 1000
    result = interpolate("{big} {name} {big}", ns, max_total_chars=1050)
    marker = "[… omitted: the 1,050-character context limit was reached]"
    assert result.text == "b" * 1000 + " Ada " + marker
    assert [c.chars for c in result.chunks] == [1000, 3, len(marker)]
    assert [c.truncated for c in result.chunks] == [False, False, True]


def test_result_types(ns: dict[str, Any]) -> None:
    result = interpolate("{name}", ns)
    assert isinstance(result, Interpolation)
    with pytest.raises(AttributeError):
        result.text = "changed"  # type: ignore[misc]


# --- text that can always be sent: no surrogates ---------------------------------------------


class SurrogateRepr:
    def __repr__(self) -> str:
        return "bytes \udcff\udcfe read with surrogateescape"


def test_lone_surrogates_in_values_become_replacement_characters() -> None:
    namespace = {"x": "a\udcffb", "obj": SurrogateRepr(), "Err": {1: "OSError: '\udcff.csv'"}}
    result = interpolate("{x} | {obj} | {Err[1]}", namespace)
    assert (
        result.text
        == "a\ufffdb | bytes \ufffd\ufffd read with surrogateescape | OSError: '\ufffd.csv'"
    )
    assert result.text.encode("utf-8")  # what the transport does with the prompt
    assert result.chunks[2].summary == "Err[1]: OSError: '\ufffd.csv'"
    for chunk in result.chunks:
        chunk.summary.encode("utf-8")


def test_surrogate_pairs_become_the_character_and_the_template_is_made_valid_too() -> None:
    result = interpolate("\udcff {face}", {"face": "\ud83d\ude00"})
    assert result.text == "\ufffd \U0001f600"
    assert result.chunks[0].chars == 1


# --- time: a value that takes too long to describe ---------------------------------------------

SAFETY = 10.0  # seconds after which the slow code below gives up by itself (never reached when
# the time limit works; without it a broken limit would hang the test run)


class SpinningRepr:
    """A ``repr`` that never returns (busy loop), with a safety exit and a progress counter."""

    def __init__(self) -> None:
        self.spins = 0

    def __repr__(self) -> str:
        deadline = time.monotonic() + SAFETY
        while time.monotonic() < deadline:
            self.spins += 1
        return "finished late"


class SlowProperty:
    @property
    def rows(self) -> int:
        deadline = time.monotonic() + SAFETY
        while time.monotonic() < deadline:
            time.sleep(0.01)
        return 0


def _describe_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == "dsh-describe-value" and t.is_alive()]


def _wait_for_describe_threads_to_end(seconds: float = 3.0) -> list[threading.Thread]:
    deadline = time.monotonic() + seconds
    while _describe_threads() and time.monotonic() < deadline:
        time.sleep(0.02)
    return _describe_threads()


def test_a_repr_that_never_returns_is_given_up_on_with_a_placeholder_and_a_warning() -> None:
    df = SpinningRepr()
    started = time.monotonic()
    result = interpolate("Look at {df} and {df}.", {"df": df}, describe_timeout=0.3)
    assert time.monotonic() - started < 2.0  # one budget: the second {df} reuses the first
    placeholder = (
        "<value of df: describing it took longer than 0.3 s; pass a smaller object or define "
        "_repr_llm_>"
    )
    assert result.text == f"Look at {placeholder} and {placeholder}."
    assert [(c.timed_out, c.truncated, c.kind) for c in result.chunks] == [
        (True, True, "variable")
    ] * 2
    assert result.warnings == [
        "{df} was left out of the prompt: describing it took longer than 0.3 s (pass a smaller "
        "object or define _repr_llm_)"
    ]
    assert _wait_for_describe_threads_to_end() == []  # the busy loop was stopped, not left spinning
    spins = df.spins
    time.sleep(0.1)
    assert df.spins == spins


def test_a_property_that_never_returns_is_bounded_by_the_default_of_two_seconds() -> None:
    started = time.monotonic()
    result = interpolate(
        "n = {table.rows}; name = {name}", {"table": SlowProperty(), "name": "Ada"}
    )
    assert 1.9 < time.monotonic() - started < 5.0
    assert result.text == (
        "n = <value of table.rows: describing it took longer than 2 s; pass a smaller object or "
        "define _repr_llm_>; name = Ada"
    )
    assert [c.timed_out for c in result.chunks] == [True, False]
    assert result.chunks[0].kind == "attribute"
    assert len(result.warnings) == 1 and "{table.rows}" in result.warnings[0]
    assert _wait_for_describe_threads_to_end() == []


def test_interrupt_kernel_stops_a_slow_description_at_once() -> None:
    spinning = SpinningRepr()
    timer = threading.Timer(0.3, _thread.interrupt_main)  # what "Interrupt kernel" does: SIGINT
    # a kernel's SIGINT raises KeyboardInterrupt; a pytest-xdist worker ignores SIGINT
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    started = time.monotonic()
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            interpolate("{v}", {"v": spinning}, describe_timeout=30)
    finally:
        timer.cancel()
        signal.signal(signal.SIGINT, previous)
    assert time.monotonic() - started < 3.0
    assert _wait_for_describe_threads_to_end() == []


def test_a_call_blocked_in_c_is_abandoned_and_reports_nothing_when_it_ends(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    reported: list[Any] = []
    monkeypatch.setattr(threading, "excepthook", reported.append)
    started = time.monotonic()
    assert call_with_time_limit(lambda: time.sleep(0.8), 0.1) == TimedOut(0.1)
    assert time.monotonic() - started < 0.6
    assert _wait_for_describe_threads_to_end() == []
    assert reported == []  # the stop request landed inside the abandoned call, silently


def test_call_with_time_limit_returns_results_and_reraises_errors() -> None:
    assert call_with_time_limit(lambda: 42, 1.0) == 42

    def fails() -> int:
        raise ValueError("from the call")

    with pytest.raises(ValueError, match="from the call"):
        call_with_time_limit(fails, 1.0)
    assert call_with_time_limit(threading.get_ident, None) == threading.get_ident()  # inline


# --- the total budget, however many references ------------------------------------------------


def test_ten_thousand_references_stay_within_the_budget_and_keep_the_prompt_text() -> None:
    template = "\n".join(f"Row {i}: {{x}}" for i in range(10_000))
    result = interpolate(template, {"x": "value " * 8}, max_total_chars=40_000)

    assert len(result.text) <= len(template) + 40_000 + 2_500  # was 590 KB
    lines = result.text.split("\n")
    assert len(lines) == 10_000
    for i, line in enumerate(lines):
        assert line.startswith(f"Row {i}: ")  # the person's own text is all there
    assert result.text.count("context limit was reached") == 21
    assert result.text.count("later references are left as written") == 1
    assert lines[-1] == "Row 9999: {x}"
    assert len(result.chunks) <= 1_000 + 21
    (warning,) = result.warnings
    assert "40,000-character context limit" in warning and "left as written" in warning
    assert "\n" not in warning


def test_reaching_the_total_budget_is_reported_once() -> None:
    result = interpolate("{big} {big}", {"big": "b" * 1000}, max_total_chars=1050)
    assert result.warnings == [
        "the interpolated values reached the 1,050-character context limit: 1 reference(s) were "
        "replaced by an omission note"
    ]
    assert interpolate("{big}", {"big": "b"}).warnings == []


# --- layer rule: context/ is pure --------------------------------------------------------------

CONTEXT = Path(__file__).resolve().parents[1] / "dsh_notebook" / "context"
# transcript.sanitize: the one home of fences and code spans a value cannot close
ALLOWED_OWN = {
    "dsh_notebook.client.prompt",
    "dsh_notebook.errors",
    "dsh_notebook.lazy",  # the lazy re-exports (stdlib only)
    "dsh_notebook.transcript.sanitize",
    "dsh_notebook.transcript.bounds",  # the one truncation marker
    "dsh_notebook.transcript.context_tags",  # the context block's tags (read back there too)
}


def test_context_imports_only_the_stdlib_and_client_prompt() -> None:
    for path in sorted(CONTEXT.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.level:
                if node.level == 2:  # ..x: outside context/
                    assert f"dsh_notebook.{node.module}" in ALLOWED_OWN, (path.name, node.module)
                continue
            names = (
                [alias.name for alias in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
                if isinstance(node, ast.ImportFrom)
                else []
            )
            for name in names:
                top = name.split(".")[0]
                assert top in sys.stdlib_module_names or name in ALLOWED_OWN, (path.name, name)


def test_using_context_never_imports_ipython() -> None:
    code = (
        "import sys\n"
        "from dsh_notebook.context import describe_value, interpolate\n"
        "interpolate('{x} {In[1]}', {'x': [1, 2], 'In': ['', 'x = 1']})\n"
        "describe_value(object())\n"
        "print('IPython' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_encodable_makes_every_string_of_a_bundle_encodable_and_copies_only_what_changed() -> None:
    from dsh_notebook.context.sanitize import encodable

    clean = {"a": ["x", {"b": "y"}], "n": 1}
    assert encodable(clean) is clean
    value = {"text/markdown": "a\ud800b", "keep": clean, "items": ("\ud83d\ude00", None), 3: 4.5}
    out = encodable(value)
    assert out == {"text/markdown": "a\ufffdb", "keep": clean, "items": ("😀", None), 3: 4.5}
    assert out["keep"] is clean and value["text/markdown"] == "a\ud800b"  # input untouched
    assert encodable({"k\udcff": ["\udc80"]}) == {"k\ufffd": ["\ufffd"]}
