"""The editing messages of the frontend protocol (v1, issue 27): builders make what the parsers
accept; malformed or oversized input is ``None``, never an exception."""

from __future__ import annotations

from typing import Any

import pytest

from dsh_notebook import page_protocol as protocol
from dsh_notebook.page_protocol import (
    MAX_CELL_SOURCE,
    MAX_OUTPUT_TEXT,
    ChangeOrigin,
    apply_change,
    parse_apply_change_reply,
    parse_run_cells_reply,
    parse_undo_reply,
    parse_undo_request,
    run_cells,
    undo_changes,
)

from .page_parser import parse_kernel_message

ORIGIN: ChangeOrigin = {"session": "s", "run": "r", "call": "call_1"}


def test_the_builders_make_what_the_page_accepts() -> None:
    edit = apply_change("c1", ORIGIN, {"kind": "edit", "cell_id": "a", "before": "x", "after": "y"})
    insert = apply_change("c2", ORIGIN, {"kind": "insert", "after_cell_id": "a",
                                         "cell_type": "markdown", "source": "# hi"})  # fmt: skip
    delete = apply_change("c3", ORIGIN, {"kind": "delete", "cell_id": "a", "before": "x"})
    run = run_cells("r1", ["a", "b"], 60, ORIGIN)
    undo = undo_changes("u1", "r", [
        {"kind": "agent_cell", "run": "r", "call": 2, "source": "# dsh agent\n1"},
        {"kind": "delete", "cell": {"cell_type": "code", "source": "x", "id": "a"},
         "after_cell_id": None, "index": 0},
        {"kind": "insert", "cell_id": "n", "source": "# hi"},
        {"kind": "edit", "cell_id": "a", "before": "x", "after": "y"},
    ])  # fmt: skip
    for message in (edit, insert, delete, run, undo):
        assert message is not None and parse_kernel_message(message) == message
    assert edit is not None and edit["change"]["kind"] == "edit" and edit["origin"] == ORIGIN
    assert undo_changes("u2", "", []) == {"v": 1, "type": "undo_changes", "request_id": "u2",
                                          "run": "", "changes": []}  # fmt: skip


@pytest.mark.parametrize(
    "build",
    [
        lambda: apply_change("c", ORIGIN, {"kind": "edit", "cell_id": "a", "before": "",
                                           "after": "x" * (MAX_CELL_SOURCE + 1)}),
        lambda: apply_change("c", ORIGIN, {"kind": "insert", "after_cell_id": "a",
                                           "cell_type": "raw", "source": ""}),
        lambda: apply_change("c", ORIGIN, {"kind": "move", "cell_id": "a"}),
        lambda: apply_change("c", {"session": "", "run": "r", "call": "c"},
                             {"kind": "delete", "cell_id": "a", "before": ""}),
        lambda: run_cells("r", [], 60, ORIGIN),
        lambda: run_cells("r", ["a"] * 21, 60, ORIGIN),
        lambda: run_cells("r", ["a"], 0, ORIGIN),
        lambda: run_cells("r", ["a"], 601, ORIGIN),
        lambda: run_cells("r", [""], 60, ORIGIN),
        lambda: undo_changes("u", "r", [{"kind": "agent_cell", "run": "r", "call": 0,
                                         "source": ""}]),
    ],
)  # fmt: skip
def test_a_builder_refuses_what_is_not_well_formed(build: Any) -> None:
    assert build() is None


def apply_reply(**fields: Any) -> dict[str, Any]:
    base: dict[str, Any] = {"v": 1, "type": "apply_change_reply", "request_id": "c1",
                            "status": "applied", "cell_id": "a", "index": 3, "source": "y"}  # fmt: skip
    base.update(fields)
    return {k: v for k, v in base.items() if v is not ...}


def test_apply_change_replies_parse() -> None:
    assert parse_apply_change_reply(apply_reply()) == apply_reply()
    stale = apply_reply(status="stale", cell_id=..., index=..., source="typed")
    assert parse_apply_change_reply(stale) == stale
    failed = apply_reply(status="failed", cell_id=..., index=..., source=..., message="no model")
    assert parse_apply_change_reply(failed) == failed


@pytest.mark.parametrize(
    "data",
    [
        None, "x", [], {},
        apply_reply(v=2), apply_reply(type="apply_change"), apply_reply(request_id=""),
        apply_reply(request_id=7), apply_reply(status="done"), apply_reply(cell_id=...),
        apply_reply(index=-1), apply_reply(index="3"), apply_reply(source=5),
        apply_reply(source="x" * (MAX_CELL_SOURCE + 1)), apply_reply(message="m" * 501),
    ],
)  # fmt: skip
def test_a_malformed_apply_change_reply_is_none(data: Any) -> None:
    assert parse_apply_change_reply(data) is None


def run_reply(cell: dict[str, Any] | None = None, **fields: Any) -> dict[str, Any]:
    one = {"cell_id": "a", "index": 0, "status": "error", "execution_count": 4,
           "outputs": [{"output_type": "error", "ename": "KeyError", "evalue": "'x'",
                        "traceback": "Traceback…\nKeyError: 'x'"},
                       {"output_type": "display_data", "mime": ["image/png"]}]}  # fmt: skip
    one.update(cell or {})
    base: dict[str, Any] = {"v": 1, "type": "run_cells_reply", "request_id": "r1", "cells": [one]}
    base.update(fields)
    return base


def test_run_cells_replies_parse() -> None:
    assert parse_run_cells_reply(run_reply()) == run_reply()
    running = run_reply({"status": "running", "execution_count": None, "index": None})
    assert parse_run_cells_reply(running) == running


@pytest.mark.parametrize(
    "data",
    [
        run_reply(cells="x"), run_reply(cells=[{}] * 21), run_reply({"status": "done"}),
        run_reply({"cell_id": ""}), run_reply({"execution_count": -1}), run_reply({"index": "0"}),
        run_reply({"outputs": [{"output_type": "error", "traceback": "t" * (MAX_OUTPUT_TEXT + 1)}]}),
        run_reply({"outputs": [{"output_type": "stream"}] * 21}),
        run_reply({"outputs": [{"output_type": "html"}]}),
        run_reply(request_id=None),
    ],
)  # fmt: skip
def test_a_malformed_run_cells_reply_is_none(data: Any) -> None:
    assert parse_run_cells_reply(data) is None


def test_undo_request_and_reply_parse_and_bounds_hold() -> None:
    request = {"v": 1, "type": "undo_request", "anchor": "dsh-cell"}
    assert parse_undo_request(request) == request
    for bad in ({**request, "anchor": ""}, {**request, "anchor": 3}, {**request, "v": 2},
                {**request, "type": "undo"}, "x"):  # fmt: skip
        assert parse_undo_request(bad) is None
    reply = {"v": 1, "type": "undo_reply", "request_id": "u1", "reverted": 2,
             "skipped": [{"cell_id": "a", "reason": "changed since the agent's edit"}]}  # fmt: skip
    assert parse_undo_reply(reply) == reply
    for bad_reply in ({**reply, "reverted": -1}, {**reply, "skipped": [{"cell_id": "a"}]},
                      {**reply, "skipped": [{"cell_id": "a", "reason": "r" * 501}]},
                      {**reply, "skipped": None}, {**reply, "request_id": ""}):  # fmt: skip
        assert parse_undo_reply(bad_reply) is None


def test_the_package_doc_names_every_editing_message() -> None:
    doc = protocol.__doc__ or ""
    for kind in ("apply_change", "apply_change_reply", "run_cells", "run_cells_reply",
                 "undo_request", "undo_changes", "undo_reply", "edit_cells"):  # fmt: skip
        assert f"``{kind}``" in doc, kind


def test_the_origin_names_the_runs_prompt_cell_when_known() -> None:
    """``origin.anchor`` (optional): the page shows "Undo this run" on that ``%%dsh`` cell."""
    anchored: ChangeOrigin = {**ORIGIN, "anchor": "dsh-cell"}
    change = {"kind": "edit", "cell_id": "a", "before": "x", "after": "y"}
    message = apply_change("c1", anchored, change)  # type: ignore[arg-type]
    assert message is not None and message["origin"]["anchor"] == "dsh-cell"
    plain = apply_change("c2", ORIGIN, change)  # type: ignore[arg-type]
    assert plain is not None and "anchor" not in plain["origin"]
    bad = apply_change("c3", {**ORIGIN, "anchor": ""}, change)  # type: ignore[arg-type, typeddict-item]
    assert bad is not None and "anchor" not in bad["origin"]
