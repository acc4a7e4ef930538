"""Issue 45, item 1, in a real ipykernel against the real runtime and the scripted model: a card
that runs code says what the code will change, before the click — on the widget's card (the
run's transcript snapshot, which the widget shows), in ``%dsh pending`` and, next to the
decision, in the saved transcript — and after "Edit, then run" what the person's code changed.
The model is never sent it."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from dsh_notebook.scripted_model import Script, ScriptedModelServer, Step, ToolCall

from .helpers.real_kernel import wait_done, wait_pending
from .kernels import Kernel, scripted_kernel

pytestmark = [pytest.mark.real_runtime, pytest.mark.timeout(240)]

RUN_PYTHON = "mcp__notebook__run_python"
SETUP = (
    "import os\nimport pandas as pd\n"
    "sales = pd.DataFrame({'a': [1.0, None, 3.0], 'b': [4, 5, 6]})\n"
    "items = [1, 2]\nscratch = 'temporary'\n"
    "def clean(frame):\n    return frame\n"
)
EVERY_KIND = (
    "sales = sales.dropna()\n"
    "items.append(3)\n"
    "del scratch\n"
    "total = len(items)\n"
    "sales.to_csv('report.csv')\n"
    "os.system('echo hi')\n"
    "%pip install polars\n"
    "import urllib.request\n"
    "urllib.request.urlopen('http://127.0.0.1:9/')\n"
    "clean(items)\n"
    "exec('pass')\n"
)
"""The agent's code: one effect of each kind (the person rejects it: none of it runs)."""
EXPECTED = [
    ("rebinds", "Rebinds sales (now DataFrame: 3 rows x 2 columns)"),
    ("mutates", "Changes in place items (now list: 2 items) by .append()"),
    ("deletes", "Deletes scratch (now str: 9 chars)"),
    ("creates", "Creates total; urllib"),
    ("files", "Files: writes report.csv"),
    ("installs", "Installs: %pip install polars"),
    ("processes", "Runs: os.system('echo hi')"),
    ("network", "Network: urllib.request.urlopen('http://127.0.0.1:9/')"),
    ("unknown", "Cannot tell: calls clean(items): may change items; exec(…) runs code built at "
                "run time"),
]  # fmt: skip
AGENT_CODE = "sales = sales.dropna()"
PERSON_CODE = "items.append(9)\nmade_by_person = 1"
TRANSCRIPT = "get_ipython()._dsh_notebook_magics.agent.runs.last().view.transcript"


def run_python(code: str) -> Step:
    return Step(tool_calls=(ToolCall(RUN_PYTHON, {"code": code}),))


@pytest.fixture
def kernel(tmp_path: Path, scripted_model: ScriptedModelServer) -> Iterator[Kernel]:
    scripted_model.register("every-kind", Script(steps=(run_python(EVERY_KIND), Step(text="ok"))))
    scripted_model.register("edit-kind", Script(steps=(run_python(AGENT_CODE), Step(text="ok"))))
    with scripted_kernel(tmp_path, scripted_model.base_url) as k:
        setup = k.execute(SETUP)
        assert setup.error is None, setup.error
        yield k


def card(k: Kernel) -> dict[str, Any]:
    """The run_python card as the run's transcript holds it (what the widget is sent)."""
    shown = k.execute(f"print(__import__('json').dumps({TRANSCRIPT}.snapshot()))")
    assert shown.error is None, shown.error
    snapshot = json.loads(shown.stdout)
    found = [
        item["approval"] for item in snapshot["items"]
        if item["kind"] == "tool" and item.get("approval")
    ]  # fmt: skip
    assert len(found) == 1, snapshot["items"]
    return dict(found[0])


def lines(item: dict[str, Any]) -> list[tuple[str, str]]:
    return [(line["kind"], line["text"]) for line in item["changes"] or []]


def model_texts(scripted_model: ScriptedModelServer, scenario: str) -> str:
    bodies = [r.body for r in scripted_model.requests if r.scenario == scenario]
    assert len(bodies) == 2, bodies
    return json.dumps(bodies)


def test_the_card_says_what_the_code_will_change_before_the_click(
    kernel: Kernel, scripted_model: ScriptedModelServer, tmp_path: Path
) -> None:
    scripted_model.clear_requests()
    cell = kernel.execute("%%dsh -s changes\n[[scenario:every-kind]] go", allow_stdin=True)
    assert cell.error is None, cell.error
    pending = wait_pending(kernel, "a1: approve run_python")
    # %dsh pending: the same lines under the card's line
    shown = pending.splitlines()
    assert shown[shown.index("    Changes:") + 1 :] == [f"      - {text}" for _, text in EXPECTED]
    # the widget's card
    assert lines(card(kernel)) == EXPECTED
    rejected = kernel.execute("%dsh reject a1")
    assert "rejected" in rejected.stdout
    wait_done(kernel)
    assert kernel.value("(len(items), 'scratch' in globals(), 'total' in globals())") == (
        "(2, True, False)"
    )  # nothing ran: the analysis never runs the code
    # the saved transcript: next to the decision
    markdown = kernel.value(f"{TRANSCRIPT}.to_markdown()")
    assert "**rejected** (by you)\\n\\n**Changes**\\n\\n- Rebinds sales" in markdown
    assert "- Files: writes report.csv" in markdown
    # the model: never
    told = model_texts(scripted_model, "every-kind")
    for _, text in EXPECTED:
        assert text.split(" (now")[0] not in told, text
    assert "Changes" not in told and "Cannot tell" not in told


def test_after_edit_then_run_the_card_says_what_the_persons_code_changed(
    kernel: Kernel, scripted_model: ScriptedModelServer
) -> None:
    cell = kernel.execute("%%dsh -s edited\n[[scenario:edit-kind]] go", allow_stdin=True)
    assert cell.error is None, cell.error
    wait_pending(kernel, "a1: approve run_python")
    assert lines(card(kernel)) == [("rebinds", "Rebinds sales (now DataFrame: 3 rows x 2 columns)")]
    comm = next(
        str(m["content"]["comm_id"]) for m in kernel.drain_iopub() + kernel.iopub
        if m["msg_type"] == "comm_open" and "snapshot" in m["content"]["data"].get("state", {})
    )  # fmt: skip
    time.sleep(0.6)  # the card is inert for ~0.5 s after it appears
    data = {"method": "custom", "content": {"type": "approval", "request_id": "a1",
                                            "decision": "allowed-once", "code": PERSON_CODE}}  # fmt: skip
    kernel.client.shell_channel.send(
        kernel.client.session.msg("comm_msg", {"comm_id": comm, "data": data})
    )
    wait_done(kernel)
    assert kernel.value("(items, made_by_person)") == "([1, 2, 9], 1)"
    decided = card(kernel)
    assert decided["decided_by"] == "you-edited"
    assert lines(decided) == [
        ("mutates", "Changes in place items (now list: 2 items) by .append()"),
        ("creates", "Creates made_by_person"),
    ]
    assert "Changes in place items" not in model_texts(scripted_model, "edit-kind")


RUN_CELLS_PAGE = ["%load_ext dsh_notebook", "items.append(3)\nsales['c'] = 0", "total = len(items)"]


def test_a_run_cells_card_says_what_each_cell_will_change(
    tmp_path: Path, scripted_model: ScriptedModelServer
) -> None:
    from .fake_page import CAPABILITIES, FakePage
    from .helpers.played_page import PlayedPage
    from .kernels import identity, open_link, page_kernel

    setup = "%load_ext dsh_notebook\n%config DshMagics.default_format = 'markdown'\n" + SETUP
    with page_kernel(tmp_path, scripted_model.base_url, setup=setup) as k:
        comm_id = open_link(k, (*CAPABILITIES, "identity"))
        calls = [{"tool": "run_cells", "args": {"cell_ids": ["@2", "@3"]}}]
        text = "%%dsh\n[[scenario:notebook-calls]] " + json.dumps(calls)
        page = FakePage([*RUN_CELLS_PAGE, text])
        page.cells[-1]["id"] = "dsh-cell"
        played = PlayedPage(k, comm_id, page)
        run = k.execute(text, allow_stdin=True, metadata=identity("dsh-cell"))
        assert run.error is None, run.error
        deadline = time.monotonic() + 120
        while not played.waiting_ids():
            assert time.monotonic() < deadline, "the run_cells card never waited"
            played.answer()
            time.sleep(0.1)
        (key,) = played.waiting_ids()
        pending = k.execute("%dsh pending").stdout
        ids = [c["id"][:8] for c in page.cells[1:3]]
        want = [
            f"      cell 2 · id {ids[0]} · not run:",
            "      - Changes in place items (now list: 2 items) by .append(); sales (now "
            "DataFrame: 3 rows x 2 columns) by sales[…] = …",
            f"      cell 3 · id {ids[1]} · not run:",
            "      - Creates total",
        ]
        shown = pending.splitlines()
        assert shown[shown.index("    Changes:") + 1 :] == want, pending
        assert [line["kind"] for line in card(k)["changes"]] == [
            "cell",
            "mutates",
            "cell",
            "creates",
        ]
        assert "rejected" in k.execute(f"%dsh reject {key}").stdout
        while k.value("_dsh.done()") != "True":
            assert time.monotonic() < deadline, "the run did not settle"
            played.answer()
            time.sleep(0.2)
        markdown = k.value(f"{TRANSCRIPT}.to_markdown()")
        assert f"**Changes**\\n\\n- **cell 2 · id {ids[0]} · not run**" in markdown, markdown
        assert k.value("len(items)") == "2"  # rejected: nothing ran
