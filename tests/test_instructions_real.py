"""The instructions that apply (issue 46 item 6), in a real ipykernel against the real runtime
and the scripted model: ``%%dsh --show-context`` and the context block name the workspace's
``AGENTS.md``, a skill and the user-level ``AGENTS.md`` with their sizes, ``%dsh rules`` shows
their text, and the runtime really puts them in front of the model (its requests hold them)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from dsh_notebook.scripted_model import ScriptedModelServer

from .kernels import Kernel, scripted_kernel

pytestmark = [pytest.mark.real_runtime]

RULES = "Always answer in French. MARKER_NOTEBOOK_RULES\n"
SKILL = "---\nname: plots\ndescription: House plot style. MARKER_SKILL\n---\nUse seaborn.\n"
USER = "Sign every answer. MARKER_USER_RULES\n"


@pytest.fixture
def kernel(tmp_path: Path, scripted_model: ScriptedModelServer) -> Iterator[Kernel]:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "AGENTS.md").write_text(RULES)
    (workspace / ".agents" / "skills" / "plots").mkdir(parents=True)
    (workspace / ".agents" / "skills" / "plots" / "SKILL.md").write_text(SKILL)
    (tmp_path / "agents").mkdir()
    (tmp_path / "agents" / "AGENTS.md").write_text(USER)
    with scripted_kernel(tmp_path, scripted_model.base_url) as k:
        yield k


def test_show_context_names_what_the_runtime_loads_and_rules_shows_it(
    kernel: Kernel, scripted_model: ScriptedModelServer, tmp_path: Path
) -> None:
    shown = kernel.execute("%%dsh --show-context\nplot it").stdout
    line = next(x for x in shown.splitlines() if x.startswith("Instructions the runtime loads"))
    assert f"AGENTS.md ({len(RULES)} bytes)" in line
    assert f".agents/skills/plots/SKILL.md ({len(SKILL)} bytes)" in line
    assert f"{tmp_path / 'agents'}/AGENTS.md ({len(USER)} bytes)" in line

    rules = kernel.execute("%dsh rules")
    assert rules.error is None, rules.error
    assert "MARKER_NOTEBOOK_RULES" in rules.stdout and "Use seaborn." in rules.stdout
    assert "MARKER_USER_RULES" in rules.stdout

    ran = kernel.execute("%%dsh --wait --format text\n[[scenario:plain]] hello")
    assert ran.error is None, ran.error
    bodies = [str(r.body) for r in scripted_model.requests if r.scenario == "plain"]
    assert bodies, "the model was never asked"
    # the runtime loaded what the block names, and the block itself reached the model
    assert "MARKER_NOTEBOOK_RULES" in bodies[0] and "MARKER_USER_RULES" in bodies[0]
    assert "MARKER_SKILL" in bodies[0]
    assert f"AGENTS.md ({len(RULES)} bytes)" in bodies[0]
