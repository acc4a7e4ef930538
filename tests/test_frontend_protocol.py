"""The kernel <-> extension protocol (v1): well-formed messages parse, everything else is None."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from dsh_notebook import page_protocol as protocol
from dsh_notebook.frontend.identity import identity_from_metadata
from dsh_notebook.transcript.bounds import truncation_mark

from .page_parser import parse_kernel_message

ID = "0123456789abcdef0123456789abcdef"
REPO = Path(__file__).resolve().parents[1]


def meta(**fields: Any) -> dict[str, Any]:
    base: dict[str, Any] = {"v": 1, "id": ID, "path": "dir/a.ipynb", "cell_id": "c1"}
    base.update(fields)
    return {"cellId": "c1", "dsh_notebook": {k: v for k, v in base.items() if v is not ...}}


def test_identity_round_trip() -> None:
    assert protocol.parse_identity(meta()) == {
        "v": 1,
        "id": ID,
        "path": "dir/a.ipynb",
        "cell_id": "c1",
    }
    forked = protocol.parse_identity(meta(forked_from="f" * 32))
    assert forked is not None and forked["forked_from"] == "f" * 32
    assert protocol.parse_identity(meta(cell_id=None)) is not None
    identity = identity_from_metadata(meta())
    assert identity is not None and identity.session_name == "nb-0123456789ab"


@pytest.mark.parametrize(
    "metadata",
    [
        None,
        [],
        "dsh_notebook",
        {},
        {"dsh_notebook": None},
        {"dsh_notebook": "x"},
        meta(v=2),
        meta(v="1"),
        meta(v=...),
        meta(id="0123"),
        meta(id=ID.upper()),
        meta(id=ID + "0"),
        meta(id=None),
        meta(path=None),
        meta(path=7),
        meta(path="p" * 5000),
        meta(cell_id=3),
        meta(cell_id=""),
        meta(forked_from="nope"),
        meta(forked_from=5),
    ],
)
def test_malformed_identity_is_none(metadata: object) -> None:
    assert protocol.parse_identity(metadata) is None
    assert identity_from_metadata(metadata) is None


def test_hello_reply() -> None:
    reply = {"v": 1, "type": "hello_reply", "version": "0.1.0", "capabilities": ["waiting"]}
    assert protocol.parse_frontend_message(reply) == reply
    for bad in (
        {**reply, "v": 2},
        {**reply, "type": "hello"},
        {**reply, "type": "insert_cell"},
        {**reply, "capabilities": "waiting"},
        {**reply, "capabilities": [1]},
        {**reply, "capabilities": [""]},
        {**reply, "version": None},
        {"v": 1},
        None,
        "hello_reply",
    ):
        assert protocol.parse_frontend_message(bad) is None, bad


def test_waiting_messages() -> None:
    cells: list[protocol.WaitingCell] = [
        {"cell_id": "c1", "kind": "approval", "label": "bash", "request_id": "a1"},
        {"cell_id": "c2", "kind": "question", "label": "Which color?"},  # an older kernel: no id
    ]
    message = protocol.waiting(cells)
    assert message == {"v": 1, "type": "waiting", "count": 2, "cells": cells}
    assert parse_kernel_message(message) == message
    assert parse_kernel_message(protocol.waiting([]))["count"] == 0  # type: ignore[index]
    bad_id = {**message, "cells": [{**cells[0], "request_id": ""}]}
    assert "request_id" not in parse_kernel_message(bad_id)["cells"][0]  # type: ignore[index]
    assert (
        protocol.waiting([{"cell_id": "c", "kind": "approval", "label": "x" * 500}])["cells"][0][
            "label"
        ]
        == "x" * 200
    )
    for bad in (
        {**message, "count": -1},
        {**message, "count": True},
        {**message, "count": 1.5},
        {**message, "cells": None},
        {**message, "cells": [{"cell_id": "c1", "kind": "other", "label": ""}]},
        {**message, "cells": [{"cell_id": "", "kind": "approval", "label": ""}]},
        {**message, "cells": [{"kind": "approval", "label": ""}]},
        {**message, "cells": ["c1"]},
        {**message, "v": 0},
    ):
        assert parse_kernel_message(bad) is None, bad


def test_run_output_messages() -> None:
    message = protocol.run_output("m1", "c1", "live", "**slow1**", "slow1")
    assert message == {
        "v": 1,
        "type": "run_output",
        "model_id": "m1",
        "cell_id": "c1",
        "state": "live",
        "bundle": {"text/markdown": "**slow1**", "text/plain": "slow1"},
    }
    assert parse_kernel_message(message) == message
    settled = protocol.run_output("m1", None, "settled", "a", "b")
    assert parse_kernel_message(settled) == settled
    long = protocol.run_output("m", None, "live", "x" * 300_000, "y" * 10, limit=1000)
    head, mark = long["bundle"]["text/markdown"].split("\n\n")
    assert len(head) + 2 + len(mark) <= 1000 and set(head) == {"x"}
    assert mark == truncation_mark(300_000 - len(head), rest="the whole run is in the kernel")
    assert long["bundle"]["text/plain"] == "y" * 10
    assert (
        protocol.MAX_BUNDLE_TEXT - 50
        < len(protocol.run_output("m", None, "live", "x" * 300_000, "")["bundle"]["text/markdown"])
        <= protocol.MAX_BUNDLE_TEXT
    )
    bundle = message["bundle"]
    for bad in (
        {**message, "state": "done"},
        {**message, "model_id": ""},
        {**message, "model_id": 3},
        {**message, "cell_id": ""},
        {**message, "cell_id": 1},
        {**message, "bundle": None},
        {**message, "bundle": {"text/plain": "x"}},
        {**message, "bundle": {**bundle, "text/markdown": 1}},
        {**message, "bundle": {**bundle, "text/plain": "x" * (protocol.MAX_BUNDLE_TEXT + 1)}},
        {**message, "v": 2},
    ):
        assert parse_kernel_message(bad) is None, bad


def test_hello_and_unknown_types() -> None:
    assert parse_kernel_message(protocol.hello("0.1.0")) == {
        "v": 1,
        "type": "hello",
        "kernel_version": "0.1.0",
    }
    for kind in (*protocol.RESERVED_TYPES, "hello_reply", "surprise"):
        assert parse_kernel_message({"v": 1, "type": kind}) is None


def test_both_sides_name_the_same_protocol() -> None:
    """protocol/constants.ts mirrors protocol/: same version, metadata key, comm target, reserved types."""
    ts = (REPO / "js" / "labextension" / "src" / "protocol" / "constants.ts").read_text()

    def constant(name: str) -> Any:
        found = re.search(rf"export const {name}(?:: [^=]+)? = (.+);", ts)
        assert found, name
        return json.loads(found.group(1).replace("'", '"'))

    assert constant("PROTOCOL_VERSION") == protocol.PROTOCOL_VERSION
    assert constant("METADATA_KEY") == protocol.METADATA_KEY
    assert constant("COMM_TARGET") == protocol.COMM_TARGET
    assert set(constant("RESERVED_TYPES")) == protocol.RESERVED_TYPES
    assert {"waiting", "run_output"} <= set(constant("CAPABILITIES"))
    assert constant("MAX_BUNDLE_TEXT") == protocol.MAX_BUNDLE_TEXT
    assert "insert_cell" in set(constant("CAPABILITIES"))  # agent cells
    assert constant("AGENT_TAG") == protocol.AGENT_TAG
    assert tuple(constant("AGENT_OUTPUT_MIMES")) == protocol.AGENT_OUTPUT_MIMES
    for name in ("MAX_CELL_SOURCE", "MAX_CELL_OUTPUTS", "MAX_OUTPUTS_TEXT"):
        assert constant(name) == getattr(protocol, name), name


def test_extension_versions_agree() -> None:
    """hello_reply's version, the npm package, its build and the Python package: one version."""
    pyproject = (REPO / "pyproject.toml").read_text()
    python = re.search(r'^version = "([^"]+)"', pyproject, re.MULTILINE).group(1)  # type: ignore[union-attr]
    npm = json.loads((REPO / "js" / "labextension" / "package.json").read_text())["version"]
    built = json.loads((REPO / "dsh_notebook" / "labextension" / "package.json").read_text())
    index = (REPO / "js" / "labextension" / "src" / "index.ts").read_text()
    found = re.search(r"export const VERSION = '([^']+)';", index)
    assert found is not None
    assert python == npm == built["version"] == found.group(1)
    assert built["name"] == "dsh-notebook"  # the folder name under share/jupyter/labextensions


def test_run_output_replay_flag() -> None:
    message = dict(protocol.run_output("m1", "c1", "settled", "a", "b"))
    assert parse_kernel_message(message) == message  # no flag: none parsed
    parsed = parse_kernel_message({**message, "replay": True})
    assert parsed is not None and parsed.get("replay") is True
    odd = parse_kernel_message({**message, "replay": "yes"})
    assert odd is not None and "replay" not in odd  # not true: an ordinary message
