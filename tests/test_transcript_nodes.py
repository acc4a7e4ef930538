"""Each node's snapshot has exactly the keys its :mod:`~dsh_notebook.transcript.schema` type declares.

The nodes derive their snapshot from their dataclass fields, so ``mypy`` no longer sees the keys;
this holds the fields and ``schema`` (the mirror of ``js/src/types.ts``) to each other.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from dsh_notebook.transcript import nodes, schema


def _keys(typed: Any) -> set[str]:
    return set(typed.__required_keys__) | set(typed.__optional_keys__)


def _full_tool() -> nodes.ToolNode:
    tool = nodes.ToolNode(id="i1", call_id="c1", name="bash")
    tool.set_arguments(json.dumps({"command": "ls"}))
    tool.job = {"job_id": "j", "kind": None, "status": "running", "detail": None}
    tool.approval = nodes.ApprovalNode(id="i2", tool_name="bash")
    tool.question = nodes.QuestionNode(id="i3", answers=[{"id": "q", "selected": ["a"]}])
    tool.subagent = nodes.SubagentNode(id="i4")
    tool.subagent.items.append(nodes.UserNode(id="i5", text="hi"))
    tool.figures.append("png")
    return tool


CASES: list[tuple[nodes.Node, Any]] = [
    (nodes.TextNode(id="i1"), schema.TextItem),
    (nodes.UserNode(id="i1"), schema.UserItem),
    (nodes.ApprovalNode(id="i1"), schema.ApprovalItem),
    (nodes.QuestionNode(id="i1"), schema.QuestionItem),
    (nodes.SubagentNode(id="i1"), schema.SubagentItem),
    (_full_tool(), schema.ToolItem),
    (nodes.ErrorNode(id="i1"), schema.ErrorItem),
    (nodes.NoteNode(id="i1"), schema.NoteItem),
]


@pytest.mark.parametrize(("node", "typed"), CASES, ids=[type(n).__name__ for n, _ in CASES])
def test_snapshot_keys_are_the_schema_keys(node: nodes.Node, typed: Any) -> None:
    item = node.to_dict()
    assert set(item) <= _keys(typed)
    assert set(item) >= set(typed.__required_keys__)
    assert list(item)[:3] == ["kind", "id", "rev"]


def test_reasoning_is_collapsed_text_is_not() -> None:
    assert "collapsed" not in nodes.TextNode(id="i1").to_dict()
    assert nodes.TextNode(id="i1", kind="reasoning").to_dict()["collapsed"] is True


def test_usage_keys_and_nested_snapshots_are_fresh_json() -> None:
    assert set(nodes.UsageTotals().to_dict()) == _keys(schema.Usage)
    tool = _full_tool()
    item = tool.to_dict()
    assert json.loads(json.dumps(item)) == item
    assert item["subagent"] is not None and item["subagent"]["items_omitted"] == 0
    assert item["subagent"]["items"][0]["kind"] == "user"
    item["figures"].append("x")
    assert item["question"] is not None and item["question"]["answers"] is not None
    item["question"]["answers"][0]["selected"].append("b")
    assert tool.figures == ["png"]
    assert tool.question is not None and tool.question.answers == [{"id": "q", "selected": ["a"]}]
