"""The cell tools in process: the real MCP server, broker, run registry, call origins, kernel
edits host, undo ledger and frontend link, with a protocol-exact fake page (``fake_page``).

Proves: an edit reaches the page only after the click, and the model is told it landed only on
``applied``; a stale or never-read cell is refused before any card, with its current source;
0 or several occurrences of ``old_text`` are refused; "Apply edits for this run" covers a second
edit and never ``run_cells``; headless and page-less calls are refused honestly; ``run_cells``
is refused while a cell holds the kernel and answers "still running" without a reply; the undo
ledger sends a run's changes newest first and reports what was skipped."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest

from dsh_notebook.kernel.registry.broker import Broker, RunPolicy
from dsh_notebook.kernel.registry.runs import ActiveRun, Runs
from dsh_notebook.kernel.tools.notebook_edits import NotebookEdits
from dsh_notebook.kernel.tools.tool_calls import CallOrigins
from dsh_notebook.kernel.tools.tools_host import NotebookToolsHost
from dsh_notebook.kernel.tools.undo import UndoLedger
from dsh_notebook.notebook_tools.cell_edits import DIFF_MAX_LINES, change_diff
from dsh_notebook.notebook_tools.cell_tools import IDLE_WAIT
from dsh_notebook.notebook_tools.executor import MainThreadExecutor
from dsh_notebook.notebook_tools.server import NotebookMcpServer
from dsh_notebook.transcript import facts

from .fake_page import CAPABILITIES, FakePage, cell_id
from .helpers.loop_host import LoopHost, event
from .helpers.mcp_tools import text_of, tool_call
from .run_registry import hold

SOURCES = ["import pandas as pd\ndf = pd.read_csv('a.csv')", "df.plot(kind='bar')", "x = 1\nx = 1"]


@dataclass
class Rig:
    page: FakePage
    server: NotebookMcpServer
    broker: Broker
    runs: Runs
    run: ActiveRun
    origins: CallOrigins
    ledger: UndoLedger
    executor: MainThreadExecutor
    facts: list[Any] = field(default_factory=list)
    calls: int = 0

    def call(self, name: str, **args: Any) -> dict[str, Any]:
        """The model calls ``name`` (its tool/call event first, as the runtime writes it)."""
        self.calls += 1
        payload = {"callId": f"call_{self.calls}", "name": f"mcp__notebook__{name}",
                   "arguments": json.dumps(args)}  # fmt: skip
        self.origins.observe(event(self.run.session, "tool/call", payload))
        return tool_call(self.server, name, **args)

    def call_in_thread(self, name: str, **args: Any) -> Callable[[], dict[str, Any]]:
        box: dict[str, Any] = {}
        worker = threading.Thread(target=lambda: box.update(r=self.call(name, **args)))
        worker.start()

        def result() -> dict[str, Any]:
            worker.join(30)
            return box["r"]  # type: ignore[no-any-return]

        return result

    def pending(self, count: int = 1) -> list[str]:
        deadline = time.monotonic() + 10
        while len(self.broker.pending) < count:
            assert time.monotonic() < deadline, "no card appeared"
            time.sleep(0.01)
        return sorted(self.broker.pending)

    def requested(self) -> list[facts.ApprovalRequested]:
        return [f for f in self.facts if isinstance(f, facts.ApprovalRequested)]


@pytest.fixture
def make_rig() -> Iterator[Callable[..., Rig]]:
    hosts: list[LoopHost] = []
    servers: list[NotebookMcpServer] = []

    def make(
        capabilities: tuple[str, ...] = CAPABILITIES,
        policy: RunPolicy | None = None,
        secrets: Callable[[], tuple[str, ...]] = tuple,
    ) -> Rig:
        host = LoopHost()
        hosts.append(host)
        page = FakePage(list(SOURCES), capabilities)
        runs, origins = Runs(), CallOrigins()
        broker = Broker(runs)
        seen: list[Any] = []
        policy = policy or RunPolicy()
        policy.notify = seen.append
        run = hold(runs, "sess", policy, cell_id="dsh-cell")
        tools = NotebookToolsHost(None, host, broker, errors={}, runs=runs, origins=origins,  # type: ignore[arg-type]
                                  kernel_loop=None)  # fmt: skip
        ledger = UndoLedger(page.link)
        edits = NotebookEdits(tools, page.link, ledger, secrets=secrets)
        executor = MainThreadExecutor()
        server = NotebookMcpServer(
            None, approve=tools._approve, executor=executor, edits=edits,
            read_notebook=page.link.read_notebook, prompt_cell=tools._prompt_cell,
        ).start()  # fmt: skip
        servers.append(server)
        return Rig(page, server, broker, runs, run, origins, ledger, executor, seen)

    yield make
    for server in servers:
        server.stop()
    for host in hosts:
        host.stop()


def test_an_edit_reaches_the_page_only_after_the_click(make_rig: Callable[..., Rig]) -> None:
    rig = make_rig()
    assert "id 00000001" in text_of(rig.call("notebook_cells"))
    result = rig.call_in_thread(
        "edit_cell", cell_id="00000002", old_text="kind='bar'", new_text="kind='bar', logy=True"
    )
    (key,) = rig.pending()
    assert rig.page.sent_of("apply_change") == [] and rig.page.source(2) == SOURCES[1]
    (card,) = rig.requested()
    assert card.tool_name == "edit_cell" and card.target == cell_id(2)
    assert card.proposed == "df.plot(kind='bar', logy=True)"
    assert card.reason is not None and card.reason.startswith("--- cell 2 · id 00000002 · not run")
    assert "-df.plot(kind='bar')\n+df.plot(kind='bar', logy=True)" in card.reason
    assert rig.broker.decide(key, "allowed-once")
    answer = result()
    assert not answer["isError"], answer
    assert text_of(answer).startswith("Applied: Edited cell 2 · id 00000002")
    assert rig.page.source(2) == "df.plot(kind='bar', logy=True)"
    (sent,) = rig.page.sent_of("apply_change")
    assert sent["origin"] == {
        "session": "sess", "run": rig.run.run_id, "call": "call_2", "anchor": rig.run.cell_id
    }  # fmt: skip
    # the applied source counts as seen: a second edit needs no new read
    again = rig.call_in_thread("replace_cell", cell_id="00000002", source="df.plot()")
    rig.pending()
    assert rig.broker.decide(next(iter(rig.broker.pending)), "rejected", note="keep it")
    rejected = text_of(again())
    assert "rejected this replace_cell call" in rejected and '"keep it"' in rejected
    assert rig.page.source(2) == "df.plot(kind='bar', logy=True)"


@pytest.mark.parametrize("secret", [None, "kind='bar')"])
def test_a_source_the_policy_masks_is_not_copied_into_the_notebooks_undo_records(
    make_rig: Callable[..., Rig], secret: str | None
) -> None:
    """The page keeps the source before an edit in the notebook (to undo without the kernel),
    except where the kernel's masking policy would mask it: then it is asked to keep none."""
    rig = make_rig(secrets=(lambda: (secret,)) if secret else tuple)
    text_of(rig.call("notebook_cells"))
    result = rig.call_in_thread(
        "edit_cell", cell_id="00000002", old_text="kind='bar'", new_text="kind='line'"
    )
    (key,) = rig.pending()
    assert rig.broker.decide(key, "allowed-once")
    answer = result()
    assert not answer["isError"], answer
    (message,) = rig.page.sent_of("apply_change")
    if secret is None:
        assert "record" not in message, message
    else:
        assert message["record"] is False, message


def test_the_persons_edit_is_the_new_source_and_the_model_is_told(
    make_rig: Callable[..., Rig],
) -> None:
    rig = make_rig()
    rig.call("notebook_cells")
    result = rig.call_in_thread("replace_cell", cell_id=cell_id(2), source="df.plot()")
    (key,) = rig.pending()
    assert rig.broker.decide(key, "allowed-once", code="df.plot(title='mine')")
    text = text_of(result())
    assert "The user edited your change" in text and "df.plot(title='mine')" in text
    assert rig.page.source(2) == "df.plot(title='mine')"


def test_a_stale_or_unread_cell_is_refused_before_any_card(make_rig: Callable[..., Rig]) -> None:
    rig = make_rig()
    unread = rig.call("edit_cell", cell_id="00000001", old_text="a.csv", new_text="b.csv")
    assert unread["isError"] and "you have not read this cell" in text_of(unread)
    rig.call("notebook_cells")
    rig.page.cells[0]["source"] = "import pandas as pd\ndf = pd.read_csv('typed.csv')"  # person
    stale = rig.call("edit_cell", cell_id="00000001", old_text="a.csv", new_text="b.csv")
    assert stale["isError"] and "refused before asking the user" in text_of(stale)
    assert "the cell changed since you last read it" in text_of(stale)
    assert "read_csv('typed.csv')" in text_of(stale)  # the current source, to try again
    assert rig.requested() == [] and rig.page.sent_of("apply_change") == []
    # the current source is now what the model saw: a corrected call gets its card
    retry = rig.call_in_thread("edit_cell", cell_id="00000001", old_text="typed", new_text="b")
    rig.pending()
    assert rig.broker.decide(next(iter(rig.broker.pending)), "allowed-once")
    assert not retry()["isError"] and rig.page.source(1).endswith("read_csv('b.csv')")


def test_old_text_must_occur_exactly_once(make_rig: Callable[..., Rig]) -> None:
    rig = make_rig()
    rig.call("notebook_cells")
    none = rig.call("edit_cell", cell_id="00000003", old_text="y = 2", new_text="y = 3")
    several = rig.call("edit_cell", cell_id="00000003", old_text="x = 1", new_text="x = 2")
    assert none["isError"] and "does not occur in the cell" in text_of(none)
    assert several["isError"] and "occurs 2 times" in text_of(several)
    unknown = rig.call("delete_cell", cell_id="ffffffff")
    assert "no cell of the notebook has the id" in text_of(unknown)
    assert rig.requested() == [] and rig.page.sent_of("apply_change") == []


def test_the_edits_scope_covers_a_second_edit_and_not_run_cells(
    make_rig: Callable[..., Rig],
) -> None:
    rig = make_rig()
    rig.call("notebook_cells")
    first = rig.call_in_thread("insert_cell", after_cell_id="00000001", source="# note",
                               cell_type="markdown")  # fmt: skip
    (key,) = rig.pending()
    assert rig.broker.decide(key, "allowed-once", for_run=True)  # Apply edits for this run
    assert text_of(first()).startswith("Applied: Inserted cell 2")
    assert rig.page.cells[1]["cell_type"] == "markdown"
    second = rig.call("delete_cell", cell_id="00000003")  # no click: the scope answers
    assert not second["isError"] and text_of(second).startswith("Applied: deleted cell 4")
    decided = [f for f in rig.facts if isinstance(f, facts.ApprovalDecided)]
    assert [d.decided_by for d in decided] == ["you-for-run", "scope"]
    rig.page.run_results = lambda ids: []
    run = rig.call_in_thread("run_cells", cell_ids=["00000001"])
    (key,) = rig.pending()  # run_cells still asks
    assert rig.broker.decide(key, "rejected")
    assert "rejected this run_cells call" in text_of(run())
    assert rig.page.sent_of("run_cells") == []


def test_headless_refuses_honestly_and_changes_nothing(make_rig: Callable[..., Rig]) -> None:
    rig = make_rig(policy=RunPolicy(wait_mode=True, stdin=False))
    rig.call("notebook_cells")
    result = rig.call("replace_cell", cell_id="00000002", source="gone()")
    assert result["isError"]
    assert text_of(result).startswith("Nobody can approve replace_cell in this run")
    assert rig.page.source(2) == SOURCES[1] and rig.page.sent_of("apply_change") == []


def test_without_a_page_that_edits_each_tool_answers_one_line(
    make_rig: Callable[..., Rig],
) -> None:
    rig = make_rig(capabilities=("waiting", "read_notebook"))
    for name, args in (("edit_cell", {"cell_id": "a", "old_text": "b", "new_text": ""}),
                       ("run_cells", {"cell_ids": ["a"]})):  # fmt: skip
        text = text_of(rig.call(name, **args))
        assert text == (
            f"{name} needs the notebook open in JupyterLab 4 or Notebook 7 with the "
            "dsh-notebook extension; none is connected to this kernel."
        )
    assert rig.requested() == []


def test_run_cells_is_refused_while_a_cell_runs_and_says_still_running(
    make_rig: Callable[..., Rig],
) -> None:
    rig = make_rig()
    rig.executor.cell_started()
    busy = rig.call("run_cells", cell_ids=["00000001"])
    assert "the kernel is busy running a cell; try again when it is idle" in text_of(busy)
    assert rig.requested() == []
    rig.executor.cell_finished()
    slow = rig.call_in_thread("run_cells", cell_ids=["00000001", "00000002"], timeout_s=1)
    (key,) = rig.pending()
    card = rig.requested()[0].reason or ""
    # never run: the whole source, every line new (issue 43 item 3; tests/test_run_cells_card.py)
    assert "cell 1 · id 00000001 · not run · every line is new\n+import pandas as pd\n" in card
    assert rig.broker.decide(key, "allowed-once")  # the page never answers
    text = text_of(slow())
    assert text.startswith("run_cells: still running after 6 s") and "not interrupted" in text


def test_an_approved_run_cells_waits_for_a_cell_ending_at_the_click_not_for_a_long_one(
    make_rig: Callable[..., Rig],
) -> None:
    rig = make_rig()
    rig.page.run_results = lambda ids: [
        {"cell_id": i, "index": 0, "status": "ok", "execution_count": 3, "outputs": []} for i in ids
    ]
    ending = rig.call_in_thread("run_cells", cell_ids=["00000001"])
    (key,) = rig.pending()
    rig.executor.cell_started()  # a cell holds the kernel at the click, and ends 0.3 s later
    assert rig.broker.decide(key, "allowed-once")
    timer = threading.Timer(0.3, rig.executor.cell_finished)
    timer.start()
    assert text_of(ending()).startswith("Ran 1 cell(s) in the notebook (ok)")
    assert rig.page.sent_of("run_cells")

    holding = rig.call_in_thread("run_cells", cell_ids=["00000001"])
    (key,) = rig.pending()
    rig.executor.cell_started()  # ... and one that outlasts the wait
    started = time.monotonic()
    assert rig.broker.decide(key, "allowed-once")
    text = text_of(holding())
    assert text.startswith("run_cells: approved, but the kernel is busy"), text
    assert time.monotonic() - started >= IDLE_WAIT - 0.5
    assert len(rig.page.sent_of("run_cells")) == 1  # nothing more was run
    rig.executor.cell_finished()


def test_run_cells_returns_each_cells_outputs_error_first(make_rig: Callable[..., Rig]) -> None:
    rig = make_rig()
    rig.page.run_results = lambda ids: [
        {"cell_id": ids[0], "index": 0, "status": "ok", "execution_count": 4,
         "outputs": [{"output_type": "stream", "text": "loaded 3 rows\n"}]},
        {"cell_id": ids[1], "index": 1, "status": "error", "execution_count": 5,
         "outputs": [{"output_type": "display_data", "mime": ["image/png", "text/plain"],
                      "text": "<Figure>"},
                     {"output_type": "error", "ename": "KeyError", "evalue": "'y'",
                      "traceback": "KeyError: 'y'"}]},
    ]  # fmt: skip
    result = rig.call_in_thread("run_cells", cell_ids=["00000001", "00000002"])
    assert rig.broker.decide(rig.pending()[0], "allowed-once")
    answer = result()
    text = text_of(answer)
    assert answer["isError"] and text.startswith("Ran 2 cell(s) in the notebook (ok, error).")
    assert "## cell 1 · id 00000001 · In [4] · ok\nstdout: loaded 3 rows" in text
    second = text.split("## cell 2")[1]
    assert second.index("error: KeyError: 'y'") < second.index("figure (image/png)")


def test_undo_sends_a_run_newest_first_and_reports_what_was_skipped(
    make_rig: Callable[..., Rig],
) -> None:
    rig = make_rig()
    rig.call("notebook_cells")
    first = rig.call_in_thread("replace_cell", cell_id="00000002", source="df.plot()")
    assert rig.broker.decide(rig.pending()[0], "allowed-once", for_run=True)
    first()
    rig.call("delete_cell", cell_id="00000003")
    (run,) = rig.ledger.runs()
    assert [c["kind"] for c in run.changes] == ["edit", "delete"] and run.anchor == "dsh-cell"
    rig.page.undo_skip = [{"cell_id": cell_id(2), "reason": "changed since the agent's edit"}]
    reports: list[Any] = []
    assert rig.ledger.undo(rig.run.run_id, reports.append) == 2
    (sent,) = rig.page.sent_of("undo_changes")
    assert [c["kind"] for c in sent["changes"]] == ["delete", "edit"]  # newest first
    assert sent["changes"][0] == {"kind": "delete", "cell": {"cell_type": "code",
        "source": SOURCES[2], "id": cell_id(3)}, "after_cell_id": cell_id(2), "index": 2}  # fmt: skip
    assert reports[0]["reverted"] == 1
    note = rig.ledger.take_note()
    assert note == (
        f"Undone since your last prompt: run {rig.run.run_id} — 1 change(s) reverted, 1 skipped "
        "(cell 00000002 changed since the agent's edit)"
    )
    assert rig.ledger.take_note() is None and rig.ledger.undo(rig.run.run_id) == 0  # dropped
    # the page's button on a cell with nothing to undo: told so
    rig.page.receive({"v": 1, "type": "undo_request", "anchor": "dsh-cell"})
    assert rig.page.sent_of("undo_changes")[-1]["changes"] == []


def test_a_200_line_cells_diff_stays_bounded() -> None:
    before = "\n".join(f"value_{i} = compute({i})" for i in range(200))
    after = before.replace("value_100 = compute(100)", "value_100 = compute(100) * 2")
    cell = {"index": 6, "id": cell_id(7), "cell_type": "code", "execution_count": 12}
    diff = change_diff("edit", cell, before, after)
    print(f"\ndiff reason for a 200-line cell, one line changed: {len(diff)} characters, "
          f"{len(diff.splitlines())} lines")  # fmt: skip
    assert len(diff.splitlines()) == 2 + 1 + 7 + 1 and len(diff) < 600
    whole = change_diff("delete", cell, "\n".join(["x"] * 1000), "")
    assert len(whole.splitlines()) == DIFF_MAX_LINES + 1 and whole.endswith("… 602 more lines")


def test_the_cell_tools_are_offered_briefly_and_say_they_need_approval() -> None:
    from dsh_notebook.notebook_tools.schemas import (
        CELL_TOOL_NAMES,
        instructions,
        tool_definitions,
    )

    tools = {t.name: t for t in tool_definitions(run_python=True, max_chars=8000)}
    assert set(CELL_TOOL_NAMES) <= set(tools)
    for name in CELL_TOOL_NAMES:
        description = tools[name].description or ""
        assert "approve" in description and len(description) <= 450, name
    assert "cell_id" in tools["edit_cell"].input_schema["required"]
    without = tool_definitions(run_python=True, max_chars=8000, cell_tools=False)
    assert not {t.name for t in without} & set(CELL_TOOL_NAMES)
    text = instructions()
    assert "edit_cell, replace_cell, insert_cell, delete_cell, run_cells" in text
    assert "edit_cell" not in instructions(cell_tools=False)
