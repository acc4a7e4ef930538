"""interpolate(): only resolving references are replaced; every other brace is kept verbatim."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

import numpy as np
import pandas as pd
import pytest

from dsh_notebook.context.interpolate import ContextChunk, Interpolation, interpolate


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
    assert "[truncated, " in result.text


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
    assert result.text.count("[truncated, ") == 1
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
