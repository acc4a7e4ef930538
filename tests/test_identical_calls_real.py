"""Identical calls of two runs released together, through a real ipykernel, the real runtime and
the scripted model (issue 43, item 1): a call's run is known by cause, never by resemblance.

Run A (``--on-approval allow``) and run B (ask) run on two sessions of one kernel. At every
trial both models send a byte-identical call of one notebook tool: the scripted model holds each
run's reply for trial *k* until both runs asked for it, then answers both at once. The page is
played by this test over the kernel's channels (:class:`~tests.fake_page.FakePage`: reads,
edits, inserts, runs); the person is played too, and **rejects every card** (a click on the
widget, over its comm). So every call that ran was granted by A's policy, and must be A's:

- **grants without a click** — a result of B's saying its call ran (B's policy is ask and the
  person allowed nothing; the runtime routes each HTTP answer to the caller that made it);
- **swaps** — what the kernel did differs from what the models were told: the kernel's count
  of executions (run_python), applied changes, inserts or page runs is not A's count of "ran";
- **false "not read" refusals** — a read that was not flagged as uncertain, followed by an edit
  of that conversation refused with "you have not read this cell".

``DSH_TWIN_TRIALS`` sets the trials per tool (CI runs a few; the closing note's figures ran 50
under load: ``DSH_TWIN_TRIALS=50 DSH_TWIN_LOAD=1``, two processes spinning on the two cores).
"""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from dsh_notebook.notebook_tools.refusals import UNCERTAIN_READ_NOTE
from dsh_notebook.scripted_model import Script, ScriptContext, ScriptedModelServer, Step, ToolCall

from .fake_page import CAPABILITIES, FakePage, cell_id
from .kernels import Kernel, identity, open_link, page_kernel

pytestmark = [pytest.mark.real_runtime, pytest.mark.timeout(900)]

TRIALS = int(os.environ.get("DSH_TWIN_TRIALS", "7"))
LOAD = os.environ.get("DSH_TWIN_LOAD") == "1"
PREFIX = "mcp__notebook__"
NOT_READ = "you have not read this cell"


WHO_WAITS = """
_a = get_ipython().magics_manager.registry['DshMagics'].agent
for _k, _p in _a.broker.pending.items():
    print('waits', _k, _p.request.session_id, _p.request.call_id, 'person only', _p.person_only,
          'under the run of', [r.session for r in _a.runs if r.policy is _p.policy])
for _r in _a.runs:
    print('run', _r.session, 'settled' if _r.settled else 'live', 'cards pending in its view',
          [p['request_id'] for p in _r.view.transcript.snapshot()['pending']])
"""
"""What waits in the broker, under whose run, and which cards each run's view offers (a
failure's message)."""


class Twins:
    """Step factories for two scripts: each run's reply to step ``k`` waits until the other run
    asked for its step ``k`` too (a barrier per step), then both are answered at once."""

    def __init__(self, steps: list[Callable[[str], Step]]) -> None:
        self.steps = steps
        self.barriers = [threading.Barrier(2, timeout=120) for _ in steps]

    @staticmethod
    def lag(k: int) -> float:
        """How long B's reply to step ``k`` follows A's: mostly at the same moment (the
        calls cannot be told apart), sometimes a little or well after (they can)."""
        return (0.0, 0.0, 0.0, 0.002, 0.01, 0.05, 1.0)[k % 7]

    def script(self, side: str) -> Script:
        def factory(k: int) -> Callable[[ScriptContext], Step]:
            def step(ctx: ScriptContext) -> Step:
                try:
                    self.barriers[k].wait()
                except threading.BrokenBarrierError:
                    pass  # the other run is gone: answer anyway, the test says what went wrong
                if side == "b":
                    time.sleep(self.lag(k))
                return self.steps[k](side)

            return step

        return Script(steps=(*(factory(k) for k in range(len(self.steps))), Step(text="done")))


def call(tool: str, args: dict[str, Any]) -> Step:
    return Step(tool_calls=(ToolCall(PREFIX + tool, args),))


@dataclass
class Trial:
    """What one tool's trials need: the page's notebook, the steps, what counts as ran."""

    page: list[str]
    steps: list[Callable[[str], Step]]
    ran: str
    """A text every result of a call that ran contains (and no refusal does)."""


def cid(n: int) -> str:
    return cell_id(n)


def trials(tool: str, n: int) -> Trial:
    def same(args: dict[str, Any]) -> Callable[[str], Step]:
        return lambda side: call(tool, args)

    def read(side: str) -> Step:
        return call("notebook_cells", {})

    # each trial's call differs from the one before (the runtime stops a loop of identical
    # calls); the two runs' calls of one trial are byte-identical
    if tool == "run_python":
        code = [same({"code": f"twin_hits.append({k}); print('twin', 'ran')"}) for k in range(n)]
        return Trial(["x = 1"], code, "twin ran")
    if tool == "insert_cell":
        inserts = [
            same({"after_cell_id": cid(1), "cell_type": "code", "source": f"twin = {k}"})
            for k in range(n)
        ]
        return Trial(["x = 1"], inserts, "Applied:")
    if tool == "run_cells":
        choices = ([cid(2)], [cid(3)], [cid(2), cid(3)])
        runs = [same({"cell_ids": choices[k % 3]}) for k in range(n)]
        return Trial(["x = 1", "y = 2", "z = 3"], runs, "Ran ")
    if tool == "edit_cell":  # both read the notebook, then edit cell k + 2 at trial k
        edits = [
            same({"cell_id": cid(k + 2), "old_text": "v = 0", "new_text": "v = 1"})
            for k in range(n)
        ]
        return Trial(["x = 1", *(["v = 0"] * n)], [read, *edits], "Applied:")
    assert tool == "notebook_cells"
    # identical reads, then each conversation replaces its own cell (distinct calls: certain)
    steps: list[Callable[[str], Step]] = []
    for k in range(n):
        steps.append(read)
        steps.append(
            lambda side, k=k: call(
                "replace_cell",
                {"cell_id": cid(2 if side == "a" else 3), "source": f"{side} = {k}"},
            )
        )
    return Trial(["x = 1", "a = 0", "b = 0"], steps, "Applied:")


@pytest.fixture
def kernel(tmp_path: Path, scripted_model: ScriptedModelServer) -> Iterator[Kernel]:
    with page_kernel(
        tmp_path, scripted_model.base_url, setup="%load_ext dsh_notebook\ntwin_hits = []"
    ) as k:
        yield k


@pytest.fixture
def load() -> Iterator[None]:
    """Both cores busy for the trials (``DSH_TWIN_LOAD=1``): the race of the claims is widest."""
    spinners = (
        [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(2)]
        if LOAD
        else []
    )
    try:
        yield
    finally:
        for p in spinners:
            p.kill()
            p.wait()


class Person:
    """The page and the person, played over the kernel's channels: the page answers the link's
    messages as ``page`` does; every card the waiting signal names is rejected by a click on
    each run widget (only the widget whose card it is accepts it)."""

    def __init__(self, k: Kernel, comm_id: str, page: FakePage) -> None:
        self.k, self.comm_id, self.page = k, comm_id, page
        self.seen = 0
        self.waiting: set[str] = set()
        self.clicked: dict[str, float] = {}
        self.widgets: set[str] = set()
        self.applied = 0
        self.acks: list[tuple[object, object, object]] = []  # (request id, ok, error) per ack
        page.run_results = lambda ids: [
            {"cell_id": i, "index": 1, "status": "ok", "execution_count": 1, "outputs": []}
            for i in ids
        ]

    def _send(self, comm_id: str, data: dict[str, Any]) -> None:
        msg = self.k.client.session.msg("comm_msg", {"comm_id": comm_id, "data": data})
        self.k.client.shell_channel.send(msg)

    def _drain(self) -> None:
        """What iopub holds now (at most 0.3 s of it: a streaming run never goes quiet)."""
        end = time.monotonic() + 0.3
        while time.monotonic() < end:
            try:
                self.k.iopub.append(self.k.client.get_iopub_msg(timeout=0.02))
            except queue.Empty:
                return

    def step(self) -> None:
        self._drain()
        for msg in self.k.iopub[self.seen :]:
            content = msg["content"]
            state = content.get("data", {}).get("state", {}) if isinstance(content, dict) else {}
            if msg["msg_type"] == "comm_open" and {"snapshot", "_esm"} <= set(state):
                self.widgets.add(content["comm_id"])  # a run widget
            if msg["msg_type"] != "comm_msg":
                continue
            ack = content.get("data", {}).get("content", {})
            if content.get("comm_id") in self.widgets and ack.get("type") == "ack":
                self.acks.append((ack.get("request_id"), ack.get("ok"), ack.get("error")))
                if ack.get("ok") or ack.get("error") == "already decided in this notebook":
                    self.waiting.discard(ack.get("request_id"))  # decided by this click
                continue
            if content.get("comm_id") != self.comm_id:
                continue
            data = content["data"]
            if data.get("type") == "waiting":
                self.waiting |= {
                    c["request_id"] for c in data.get("cells", []) if "request_id" in c
                }
                continue
            replies: list[dict[str, Any]] = []
            self.page.receive = replies.append  # type: ignore[method-assign]
            self.page.send(data)
            for reply in replies:
                if reply.get("type") == "apply_change_reply" and reply["status"] == "applied":
                    self.applied += 1
                self._send(self.comm_id, reply)
        self.seen = len(self.k.iopub)
        # the card reaches its widget's snapshot on the UI pump, after the waiting signal: a
        # click that came too early is refused there (gone), so click again until a widget
        # acknowledges it
        now = time.monotonic()
        for key in self.waiting:
            if now - self.clicked.get(key, 0.0) > 0.5:
                self.clicked[key] = now
                click = {"type": "approval", "request_id": key, "decision": "rejected"}
                for widget in self.widgets:
                    self._send(widget, {"method": "custom", "content": click})


def results_of(model: ScriptedModelServer, scenario: str, tool: str) -> list[str]:
    """The text of every result of ``tool`` the model of ``scenario`` was sent, in order (the
    last request of the run holds them all)."""
    bodies = [r.body for r in model.requests if r.scenario == scenario and r.body]
    assert bodies, f"no request of {scenario}"
    names: dict[str, str] = {}
    out: list[str] = []
    for message in bodies[-1]["messages"]:
        content = message.get("content")
        if not isinstance(content, list):
            continue
        for block in content:
            if block.get("type") == "tool_use":
                names[block["id"]] = block["name"]
            elif block.get("type") == "tool_result" and names.get(block["tool_use_id"]) == (
                PREFIX + tool
            ):
                inner = block.get("content")
                out.append(json.dumps(inner, ensure_ascii=False) if not isinstance(inner, str)
                           else inner)  # fmt: skip
    return out


@pytest.mark.parametrize(
    "tool", ["run_python", "insert_cell", "edit_cell", "run_cells", "notebook_cells"]
)
def test_identical_calls_of_two_runs_are_never_swapped(
    kernel: Kernel, scripted_model: ScriptedModelServer, tool: str, load: None
) -> None:
    trial = trials(tool, TRIALS)
    twins = Twins(trial.steps)
    scripted_model.register(f"twin-a-{tool}", twins.script("a"))
    scripted_model.register(f"twin-b-{tool}", twins.script("b"))
    comm_id = open_link(kernel, (*CAPABILITIES, "identity"))
    page = FakePage(trial.page)
    person = Person(kernel, comm_id, page)
    a = kernel.execute(
        f"%%dsh -s twin-a --on-approval allow\n[[scenario:twin-a-{tool}]] go",
        allow_stdin=True,
        metadata=identity("cell-a"),
    )
    b = kernel.execute(
        f"%%dsh -s twin-b\n[[scenario:twin-b-{tool}]] go",
        allow_stdin=True,
        metadata=identity("cell-b"),
    )
    assert a.error is None and b.error is None, (a.error, b.error)
    expected = len(trial.steps) + 1
    deadline = time.monotonic() + 60 + 6 * len(trial.steps)
    while any(
        sum(r.scenario == f"twin-{side}-{tool}" for r in scripted_model.requests) < expected
        for side in "ab"
    ):
        assert time.monotonic() < deadline, (
            "the runs did not reach their last step: "
            + repr(
                [
                    (r.scenario, str(r.body.get("messages", [])[-1:])[:300])
                    for r in scripted_model.requests
                    if r.body
                ][-4:]
            )
            + kernel.execute("%dsh pending").stdout
            + f"\nperson: waiting {sorted(person.waiting)}, clicked {sorted(person.clicked)}, "
            f"acks {person.acks[-3:]}\n" + kernel.execute(WHO_WAITS).stdout
        )
        person.step()
        time.sleep(0.05)
    agent = "get_ipython().magics_manager.registry['DshMagics'].agent"
    while kernel.value(f"all(s in {agent}.results for s in ('twin-a', 'twin-b'))") != "True":
        assert time.monotonic() < deadline, "the runs did not settle"
        person.step()
        time.sleep(0.1)

    a_results = results_of(scripted_model, f"twin-a-{tool}", tool)
    b_results = results_of(scripted_model, f"twin-b-{tool}", tool)
    if tool == "notebook_cells":
        edits_a = results_of(scripted_model, f"twin-a-{tool}", "replace_cell")
        edits_b = results_of(scripted_model, f"twin-b-{tool}", "replace_cell")
        false_refusals = sum(
            NOT_READ in edit and UNCERTAIN_READ_NOTE not in read
            for reads, edits in ((a_results, edits_a), (b_results, edits_b))
            for read, edit in zip(reads, edits, strict=True)
        )
        uncertain = sum(UNCERTAIN_READ_NOTE in r for r in a_results + b_results)
        print(f"\n{tool}: {TRIALS} trials, reads uncertain {uncertain} of {2 * TRIALS}, "
              f"false 'not read' refusals {false_refusals}")  # fmt: skip
        assert len(a_results) == len(b_results) == TRIALS
        assert false_refusals == 0
        assert not any(trial.ran in e for e in edits_b)  # B's edits: rejected by the person
        return
    a_ran = sum(trial.ran in r for r in a_results)
    b_ran = sum(trial.ran in r for r in b_results)
    if tool == "run_python":
        done = int(kernel.value("len(twin_hits)"))
    elif tool == "run_cells":
        done = len(page.sent_of("run_cells"))
    else:
        done = person.applied
    print(f"\n{tool}: {TRIALS} trials, A ran {a_ran}, B ran (no click) {b_ran}, "
          f"kernel/page did {done}, cards rejected {len(person.clicked)}")  # fmt: skip
    assert len(a_results) == len(b_results) == TRIALS
    assert b_ran == 0, "a call of B ran without a click"
    # a trial B answers 1 s later can be told apart: A's allow decides it, nobody else
    assert a_ran >= TRIALS // 7, "calls that could be told apart went to the person"
    assert done == a_ran, "what ran differs from what A's model was told ran (a swap)"
    if tool == "run_python":  # each agent cell under A's prompt cell
        anchors = [m.get("anchor") for m in page.sent_of("insert_cell")]
        assert anchors == ["cell-a"] * a_ran, anchors
