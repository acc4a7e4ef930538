"""The page protocol's shared examples (``js/labextension/test/fixtures/page-protocol.json``),
read here and by ``js/labextension/test/protocol.test.ts``: both sides hold the same limits, spell
the truncation marker the same, accept every valid example unchanged and refuse every invalid
one; the page's output summaries are what the kernel accepts."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from dsh_notebook import page_protocol as protocol
from dsh_notebook.page_protocol import editing
from dsh_notebook.page_protocol.parsing import checked_output
from dsh_notebook.transcript.bounds import truncation_mark

from .page_parser import parse_kernel_message

FIXTURE = Path(__file__).resolve().parents[1] / "js/labextension/test/fixtures/page-protocol.json"


def expand(value: Any) -> Any:
    """The fixture's value with ``$repeat`` / ``$concat`` written out."""
    if isinstance(value, dict):
        if "$repeat" in value:
            item, times = expand(value["$repeat"]), value["times"]
            return item * times if isinstance(item, str) else [item] * times
        if "$concat" in value:
            return "".join(expand(v) for v in value["$concat"])
        return {k: expand(v) for k, v in value.items()}
    if isinstance(value, list):
        return [expand(v) for v in value]
    return value


FIX: dict[str, Any] = expand(json.loads(FIXTURE.read_text(encoding="utf-8")))

PAGE_PARSERS: dict[str, Callable[[object], object]] = {
    "hello_reply": protocol.parse_frontend_message,
    "read_notebook_reply": protocol.parse_read_notebook_reply,
    "apply_change_reply": protocol.parse_apply_change_reply,
    "run_cells_reply": protocol.parse_run_cells_reply,
    "undo_request": protocol.parse_undo_request,
    "undo_reply": protocol.parse_undo_reply,
}


def parse_page_message(message: Any) -> object:
    parse = PAGE_PARSERS.get(message.get("type")) if isinstance(message, dict) else None
    return None if parse is None else parse(message)


def test_every_limit_is_the_kernels() -> None:
    limits = FIX["limits"]
    for name, value in limits.items():
        ours = getattr(protocol, name, None)
        ours = getattr(editing, name) if ours is None else ours
        if isinstance(ours, frozenset):
            assert sorted(ours) == value, name
        elif isinstance(ours, tuple):
            assert list(ours) == value, name
        else:
            assert ours == value, name
    shared = {n for n in (*vars(protocol), *vars(editing)) if n.startswith("MAX_")}
    assert shared == {n for n in limits if n.startswith("MAX_")}  # none left out


def test_the_truncation_mark_is_spelled_as_the_page_spells_it() -> None:
    mark = FIX["truncation_mark"]
    assert truncation_mark(mark["omitted"]) == mark["text"]


def test_kernel_messages_both_sides_accept_and_refuse() -> None:
    section = FIX["kernel_to_page"]
    kinds = {m["type"] for m in section["valid"]}
    assert kinds == {"hello", "waiting", "run_output", "insert_cell", "read_notebook",
                     "apply_change", "run_cells", "undo_changes"}  # fmt: skip
    for message in section["valid"]:
        assert parse_kernel_message(message) == message, message["type"]
    for case in section["invalid"]:
        assert parse_kernel_message(case["message"]) is None, case["why"]


@pytest.mark.parametrize("kind", sorted(PAGE_PARSERS))
def test_page_messages_are_read_within_bounds(kind: str) -> None:
    section = FIX["page_to_kernel"]
    valid = [m for m in section["valid"] if m["type"] == kind]
    assert valid, kind
    for message in valid:
        assert parse_page_message(message) == message, kind
    for case in section["invalid"]:
        if case["message"].get("type") == kind:
            assert parse_page_message(case["message"]) is None, case["why"]


def test_page_reply_types_are_all_covered() -> None:
    section = FIX["page_to_kernel"]
    assert {m["type"] for m in section["valid"]} == set(PAGE_PARSERS)
    assert {c["message"].get("type") for c in section["invalid"]} == set(PAGE_PARSERS)


def test_identity_metadata() -> None:
    for identity in FIX["identity"]["valid"]:
        assert protocol.parse_identity({protocol.METADATA_KEY: identity}) == identity
    for case in FIX["identity"]["invalid"]:
        assert protocol.parse_identity({protocol.METADATA_KEY: case["message"]}) is None, case


def test_the_pages_output_summaries_are_what_the_kernel_accepts() -> None:
    for case in FIX["output_summaries"]:
        assert checked_output(case["summary"]) == case["summary"]
        run = case.get("run_summary", case["summary"])
        assert checked_output(run, traceback=True) == run
