"""Which instruction files the runtime loads, found where it looks (``context.instructions``);
what the real runtime sends is checked in ``test_instructions_real.py``."""

from __future__ import annotations

from pathlib import Path

from dsh_notebook.context.instructions import (
    RULES_MAX,
    agents_home,
    instruction_files,
    instructions_line,
    read_instruction,
)
from dsh_notebook.context.notebook_context import NotebookFacts, notebook_context_block


def test_the_files_the_runtime_loads_in_its_order_and_nothing_else(tmp_path: Path) -> None:
    ws, home = tmp_path / "ws", tmp_path / "home"
    (ws / ".dsh" / "skills" / "a").mkdir(parents=True)
    (ws / ".agents" / "skills" / "b").mkdir(parents=True)
    (home / "skills" / "c").mkdir(parents=True)
    (ws / "CLAUDE.md").write_text("c")
    (ws / "AGENTS.md").write_text("ab")
    (ws / ".dsh" / "skills" / "a" / "SKILL.md").write_text("x" * 5)
    (ws / ".agents" / "skills" / "b" / "SKILL.md").write_text("y")
    (ws / ".agents" / "skills" / "b" / "notes.md").write_text("not a skill file")
    (home / "AGENTS.md").write_text("u")
    (home / "CLAUDE.md").write_text("the runtime does not read a user-level CLAUDE.md")
    (home / "skills" / "c" / "SKILL.md").write_text("z")
    files = instruction_files(ws, home)
    assert [(f.label, f.size, f.kind) for f in files] == [
        ("AGENTS.md", 2, "workspace"),
        ("CLAUDE.md", 1, "workspace"),
        (".dsh/skills/a/SKILL.md", 5, "skill"),
        (".agents/skills/b/SKILL.md", 1, "skill"),
        (f"{home}/AGENTS.md", 1, "user"),
        (f"{home}/skills/c/SKILL.md", 1, "skill"),
    ]
    assert instructions_line(files[:2]) == (
        "Instructions the runtime loads: AGENTS.md (2 bytes), CLAUDE.md (1 byte)"
    )


def test_nothing_found_is_said_and_the_block_leaves_the_line_out(tmp_path: Path) -> None:
    assert instruction_files(tmp_path / "missing", None) == []
    assert instructions_line([]).endswith("none (no AGENTS.md, CLAUDE.md or skills).")
    assert "Instructions" not in notebook_context_block(NotebookFacts())
    named = notebook_context_block(NotebookFacts(instructions="Instructions the runtime loads: X"))
    assert "Instructions the runtime loads: X" in named


def test_rules_text_is_bounded_and_the_home_defaults_to_dot_agents(tmp_path: Path) -> None:
    (tmp_path / "AGENTS.md").write_text("r" * (RULES_MAX + 50))
    (file,) = instruction_files(tmp_path, None)
    text = read_instruction(file)
    assert text.startswith("r" * RULES_MAX) and "cut at 20,000 characters" in text
    assert agents_home({"DSH_AGENTS_HOME": str(tmp_path)}) == tmp_path
    assert agents_home({}) == Path.home() / ".agents"
