"""FrontendLink with a fake comm: no-ops until the extension answers, then latest state wins."""

from __future__ import annotations

import threading
from collections.abc import Mapping
from typing import Any

from dsh_notebook.frontend.link import KEPT_RUN_OUTPUTS, FrontendLink

from .helpers.frontend_link import REPLY, FakeComm, make

CELL = {"cell_id": "c1", "kind": "approval", "label": "bash"}


def test_hello_then_reply_records_capabilities() -> None:
    link, comms = make()
    assert not link.present and link.capabilities == frozenset()
    assert link.open() and link.open()
    assert len(comms) == 1  # opened once
    comm = comms[0]
    assert comm.target == "dsh_notebook.frontend"
    assert comm.open_data["type"] == "hello" and comm.open_data["v"] == 1
    comm.receive({"v": 1, "type": "surprise"})  # unknown: ignored
    comm.receive("garbage")
    assert not link.present
    comm.receive(REPLY)
    assert link.present and link.capabilities == {"waiting"}
    assert link.frontend_version == "0.1.0"


def test_waiting_is_kept_until_the_reply_and_latest_wins() -> None:
    link, comms = make()
    assert link.send_waiting([CELL]) is False  # no comm: a no-op
    link.open()
    assert link.send_waiting([CELL, {**CELL, "cell_id": "c2"}]) is False
    assert link.send_waiting([CELL]) is False
    assert comms[0].sent == []
    comms[0].receive(REPLY)
    assert comms[0].sent == [{"v": 1, "type": "waiting", "count": 1, "cells": [CELL]}]
    assert link.send_waiting([]) is True
    assert comms[0].sent[-1]["count"] == 0


def test_close_forgets_the_frontend() -> None:
    link, comms = make()
    link.open()
    comms[0].receive(REPLY)
    assert comms[0].close is not None
    comms[0].close({})
    assert not link.present
    assert link.send_waiting([CELL]) is False
    assert link.open() and len(comms) == 2


def test_without_a_kernel_everything_is_a_no_op() -> None:
    def broken(target: str, data: Mapping[str, Any]) -> FakeComm:
        raise RuntimeError("no kernel")

    link = FrontendLink(create_comm=broken)
    assert link.open() is False
    assert link.send_waiting([CELL]) is False and not link.present


def test_send_waiting_from_threads() -> None:
    link, comms = make()
    link.open()
    comms[0].receive(REPLY)
    threads = [
        threading.Thread(target=lambda i=i: link.send_waiting([{**CELL, "label": str(i)}]))
        for i in range(20)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(comms[0].sent) == 20
    assert all(m["count"] == 1 for m in comms[0].sent)


def test_run_output_is_kept_per_run_and_sent_again_to_every_page() -> None:
    link, comms = make()
    bundle = {"text/markdown": "**a**", "text/plain": "a"}
    assert link.send_run_output("m1", "c1", "live", bundle) is False  # no comm: kept
    link.open()
    assert link.send_run_output("m1", "c1", "live", {**bundle, "text/plain": "a2"}) is False
    assert link.send_run_output("m2", None, "settled", bundle) is False
    comms[0].receive(REPLY)  # no run_output capability: nothing of it is sent
    assert comms[0].sent == []
    assert link.send_run_output("m1", "c1", "live", bundle) is False
    comms[0].receive({**REPLY, "capabilities": ["waiting", "run_output"]})
    sent = [(m["model_id"], m["state"], m["bundle"]["text/plain"]) for m in comms[0].sent]
    assert sent == [("m2", "settled", "a"), ("m1", "live", "a")]  # latest per run, in order
    assert link.send_run_output("m1", "c1", "settled", bundle) is True
    comms[0].sent.clear()
    comms[0].receive({**REPLY, "capabilities": ["run_output"]})  # a reloaded page answers again
    assert [(m["model_id"], m["state"]) for m in comms[0].sent] == [
        ("m2", "settled"),
        ("m1", "settled"),
    ]
    assert all(m.get("replay") is True for m in comms[0].sent)  # a page may refill its cells
    comms[0].sent.clear()
    link.send_run_output("m3", "c3", "live", bundle)
    assert "replay" not in comms[0].sent[0]  # only what answers a hello is a replay


def test_run_outputs_kept_are_bounded_and_sent_from_any_thread() -> None:
    link, comms = make()
    link.open()
    comms[0].receive({**REPLY, "capabilities": ["run_output"]})
    bundle = {"text/markdown": "x", "text/plain": "x"}
    threads = [
        threading.Thread(target=link.send_run_output, args=(f"m{i}", None, "live", bundle))
        for i in range(KEPT_RUN_OUTPUTS + 8)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(comms[0].sent) == KEPT_RUN_OUTPUTS + 8
    comms[0].sent.clear()
    comms[0].receive({**REPLY, "capabilities": ["run_output"]}, session="reloaded")  # a new page
    assert len(comms[0].sent) == KEPT_RUN_OUTPUTS
