"""describe_value / short_summary: bounded, never raising, informative descriptions."""

from __future__ import annotations

import ast
import re
import time
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from dsh_notebook.context.describe import (
    describe_value,
    short_summary,
    truncate,
)
from dsh_notebook.transcript.bounds import truncation_mark

CONTEXT = Path(__file__).resolve().parents[1] / "dsh_notebook" / "context"
MARKER_RE = re.compile(r" ?\[… ([\d,]+) characters omitted …\]$")


class BadRepr:
    def __repr__(self) -> str:
        raise ValueError("boom")


class Hostile:
    """Every attribute lookup, len() and repr() raises."""

    def __getattr__(self, name: str) -> Any:
        raise RuntimeError(f"no {name}")

    def __len__(self) -> int:
        raise RuntimeError("no len")

    def __repr__(self) -> str:
        raise RuntimeError("no repr")


class Plain:
    pass


def _frame(rows: int) -> pd.DataFrame:
    rng = np.random.default_rng(0)
    frame = pd.DataFrame(
        {
            "id": np.arange(rows),
            "value": rng.random(rows),
            "region": rng.choice(["north", "south", "east"], rows),
        }
    )
    frame.loc[::7, "value"] = np.nan
    return frame


# --- truncate and the cap ---------------------------------------------------------------------


@pytest.mark.parametrize("length", [0, 1, 49, 50, 51, 100, 10_000, 1_000_000])
@pytest.mark.parametrize("limit", [40, 50, 200, 4000])
def test_truncate_bounds_and_counts(length: int, limit: int) -> None:
    text = "x" * length
    out, cut = truncate(text, limit)
    assert len(out) <= limit
    assert cut == (length > limit)
    if cut:
        match = MARKER_RE.search(out)
        assert match is not None
        kept = len(out) - len(match.group(0))
        assert kept + int(match.group(1).replace(",", "")) == length
    else:
        assert out == text


def test_truncate_tiny_limit_returns_marker_only() -> None:
    out, cut = truncate("y" * 500, 5)
    assert cut
    assert out == truncation_mark(500)


@pytest.mark.parametrize(
    "value",
    [
        "s" * 10_000,
        list(range(10_000)),
        {str(i): "v" * 100 for i in range(1000)},
        np.arange(100_000).reshape(100, 1000),
        b"\x00" * 100_000,
        Plain(),
        BadRepr(),
        Hostile(),
    ],
    ids=["str", "list", "dict", "ndarray", "bytes", "plain", "badrepr", "hostile"],
)
def test_every_result_is_capped(value: Any) -> None:
    for limit in (60, 300):
        out = describe_value(value, max_chars=limit)
        assert isinstance(out, str)
        assert len(out) <= limit


def test_dataframe_result_is_capped_with_marker() -> None:
    out = describe_value(_frame(100), max_chars=300)
    assert len(out) <= 300
    assert MARKER_RE.search(out)


# --- pandas ------------------------------------------------------------------------------------


def test_million_row_dataframe_is_quick_and_bounded() -> None:
    frame = _frame(1_000_000)
    start = time.perf_counter()
    out = describe_value(frame)
    elapsed = time.perf_counter() - start
    assert elapsed < 1.0, f"describe took {elapsed:.2f}s"
    assert len(out) <= 4000
    assert out.startswith("DataFrame: 1,000,000 rows x 3 columns")
    assert "'value': float64" in out
    assert "First 10 of 1,000,000 rows:" in out
    assert "'value': 142,858" in out  # null count of every 7th row
    assert "Numeric summary (describe()):" in out
    assert "999999" in out  # max of id in describe()
    assert "north" in out or "south" in out or "east" in out


def test_dataframe_head_respects_max_rows_and_reports_no_nulls() -> None:
    frame = pd.DataFrame({"a": range(100), "b": [f"row{i}" for i in range(100)]})
    out = describe_value(frame, max_rows=3, max_chars=100_000)
    assert "First 3 of 100 rows:" in out
    assert "row2" in out
    assert "row3" not in out
    assert "no nulls" in out


def test_wide_dataframe_skips_numeric_summary() -> None:
    frame = pd.DataFrame(np.zeros((5, 60)), columns=[f"c{i}" for i in range(60)])
    out = describe_value(frame, max_chars=100_000)
    assert out.startswith("DataFrame: 5 rows x 60 columns")
    assert "describe()" not in out
    narrow = describe_value(frame.iloc[:, :5], max_chars=100_000)
    assert "describe()" in narrow


def test_series() -> None:
    series = pd.Series([1.0, None, 3.0], name="price")
    out = describe_value(series, max_chars=100_000)
    assert out.startswith("Series 'price': 3 rows, dtype float64")
    assert "Nulls: 1" in out
    assert "mean" in out
    assert short_summary(series) == "Series 'price': 3 rows, float64"


def test_dataframe_summary_line() -> None:
    assert short_summary(_frame(12)) == "DataFrame: 12 rows x 3 columns"


# --- numpy -------------------------------------------------------------------------------------


def test_numpy_stats_are_nan_aware() -> None:
    arr = np.array([[1.0, np.nan], [3.0, 5.0]])
    out = describe_value(arr)
    assert out.startswith("ndarray: shape (2, 2), dtype float64, 4 elements")
    assert "min: 1.0" in out
    assert "max: 5.0" in out
    assert "mean: 3.0" in out
    assert f"std: {np.nanstd(arr)}" in out
    assert "nan count: 1" in out


def test_numpy_edge_cases_do_not_warn_or_raise() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert "all values are NaN" in describe_value(np.array([np.nan, np.nan]))
        assert "min" not in describe_value(np.array([]))
        assert "true: 2 of 3" in describe_value(np.array([True, False, True]))
        assert "ndarray: shape (), dtype int64" in describe_value(np.array(7))
        assert "min" not in describe_value(np.array(["a", "b"]))


def test_large_array_repr_is_summarized() -> None:
    out = describe_value(np.arange(1_000_000))
    assert "..." in out
    assert "999999" in out
    assert len(out) < 1000
    assert short_summary(np.zeros((3, 4))) == "ndarray: shape (3, 4), float64"
    assert short_summary(np.zeros(3)) == "ndarray: shape (3,), float64"


# --- polars ------------------------------------------------------------------------------------


def test_polars_dataframe_and_series() -> None:
    pl = pytest.importorskip("polars")
    frame = pl.DataFrame({"a": [1, 2, None], "s": ["x", "y", "z"]})
    out = describe_value(frame, max_chars=100_000)
    assert out.startswith("polars DataFrame: 3 rows x 2 columns")
    assert "'a': Int64" in out
    assert "'s': String" in out
    assert "'a': 1" in out.split("Null counts:")[1]
    assert "null" in out  # the head table shows the missing value
    series = pl.Series("x", [1, None, 3])
    s_out = describe_value(series)
    assert s_out.startswith("polars Series 'x': 3 rows, dtype Int64")
    assert "Nulls: 1" in s_out
    lazy = describe_value(frame.lazy())
    assert lazy.startswith("polars LazyFrame (not evaluated)")
    assert "'s': String" in lazy
    assert short_summary(frame) == "polars DataFrame: 3 rows x 2 columns"


@pytest.mark.parametrize("library", ["pandas", "polars"])
def test_null_counts_say_how_many_more_columns_have_nulls(library: str) -> None:
    lib = pytest.importorskip(library)
    frame = lib.DataFrame({f"c{i}": [None, 1.0] for i in range(130)})
    nulls = describe_value(frame, max_chars=100_000).split("Null counts:")[1]
    assert "'c99': 1" in nulls and "'c100'" not in nulls
    assert "… 30 more columns with nulls" in nulls


# --- self-description, reprs -------------------------------------------------------------------


def test_repr_llm_is_used_and_capped() -> None:
    class Model:
        def _repr_llm_(self) -> str:
            return "A model with 3 layers. " * 100

    assert describe_value(Model(), max_chars=10_000).startswith("A model with 3 layers.")
    capped = describe_value(Model(), max_chars=100)
    assert len(capped) <= 100
    assert MARKER_RE.search(capped)


def test_repr_llm_failures_fall_back() -> None:
    class Raises:
        def _repr_llm_(self) -> str:
            raise RuntimeError("nope")

        def __repr__(self) -> str:
            return "Raises()"

    class NotText:
        def _repr_llm_(self) -> int:
            return 42

        def __repr__(self) -> str:
            return "NotText()"

    class Owner:
        def _repr_llm_(self) -> str:
            return "instance text"

    assert describe_value(Raises()) == "Raises()"
    assert describe_value(NotText()) == "NotText()"
    assert "instance text" not in describe_value(Owner)  # the class is not called unbound


def test_repr_that_raises() -> None:
    assert describe_value(BadRepr()) == "<BadRepr: repr failed: ValueError: boom>"
    assert "<BadRepr: repr failed: ValueError: boom>" in describe_value([BadRepr()])
    assert describe_value(Hostile()) == "<Hostile: repr failed: RuntimeError: no repr>"
    assert short_summary(Hostile()) == "Hostile"


def test_memory_addresses_are_stripped() -> None:
    out = describe_value(Plain())
    assert "0x" not in out
    assert out == f"<{__name__}.Plain object>"

    def fn() -> None:
        pass

    assert " at 0x" not in describe_value(fn)
    assert " at 0x" not in describe_value([Plain(), fn])


# --- containers, strings -----------------------------------------------------------------------


def test_list_sample() -> None:
    out = describe_value(list(range(1000)), max_rows=3)
    assert out.splitlines() == [
        "list: 1,000 items; first 3:",
        "  [0] 0",
        "  [1] 1",
        "  [2] 2",
        "  … 997 more items",
    ]
    assert short_summary([1]) == "list: 1 item"


def test_dict_sample_with_nested_values_abbreviated() -> None:
    value = {"frame": _frame(5), "nested": {"x": [[[[1]]]]}, "long": "z" * 1000}
    out = describe_value(value)
    lines = out.splitlines()
    assert lines[0] == "dict: 3 items; first 3:"
    assert "  'frame': <DataFrame: 5 rows x 3 columns>" in lines
    assert any(line.startswith("  'nested': {'x': [<list, 1 item>]}") for line in lines)
    assert all(len(line) < 200 for line in lines)


def test_generators_are_not_consumed() -> None:
    gen = (i for i in range(3))
    describe_value(gen)
    assert list(gen) == [0, 1, 2]


def test_string_is_itself_capped() -> None:
    assert describe_value("hello {world}") == "hello {world}"
    out = describe_value("a" * 5000, max_chars=100)
    assert out.startswith("a" * 50)
    match = MARKER_RE.search(out)
    assert match is not None
    assert len(out) - len(match.group(0)) + int(match.group(1).replace(",", "")) == 5000


def test_short_summary_is_one_line() -> None:
    assert short_summary("two\nlines") == "str: 9 chars"
    assert short_summary(3) == "int: 3"
    assert short_summary(None) == "NoneType: None"
    assert short_summary({"a": 1}) == "dict: 1 item"
    assert "\n" not in short_summary(_frame(3))


# --- encodable text ----------------------------------------------------------------------------


class SurrogateLlm:
    def _repr_llm_(self) -> str:
        return "name \udcff"


class SurrogateRepr:
    def __repr__(self) -> str:
        return "\ud800 alone, \ud83d\ude00 paired"


def test_descriptions_never_contain_surrogates() -> None:
    assert describe_value(SurrogateLlm()) == "name \ufffd"
    assert describe_value(SurrogateRepr()) == "\ufffd alone, \U0001f600 paired"
    assert describe_value("\udcff") == "\ufffd"
    series = pd.Series([1, 2], name=SurrogateRepr())
    assert short_summary(series) == "Series \ufffd alone, \U0001f600 paired: 2 rows, int64"


# --- import hygiene ----------------------------------------------------------------------------

HEAVY = {"IPython", "pandas", "numpy", "polars", "matplotlib", "PIL", "ipykernel", "ipywidgets"}


@pytest.mark.parametrize("module", sorted(path.name for path in CONTEXT.glob("*.py")))
def test_no_heavy_imports_at_module_level(module: str) -> None:
    tree = ast.parse((CONTEXT / module).read_text())
    for node in tree.body:  # module level only; lazy imports inside functions are fine
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names = [node.module]
        for name in names:
            assert name.split(".")[0] not in HEAVY, f"{module} imports {name} at module level"
