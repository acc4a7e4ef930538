"""Approval requests and a person's click on their card, for broker tests."""

from __future__ import annotations

import functools
from typing import Any

import anyio

from dsh_notebook.kernel.registry.broker import Broker, Decision
from dsh_notebook.protocol import ApprovalRequest


def ask(tool: str = "bash", session: str = "s", reason: str = "why") -> ApprovalRequest:
    return ApprovalRequest(session_id=session, tool_name=tool, reason=reason)


async def decide_when_pending(broker: Broker, key: str, **decision: Any) -> None:
    while key not in broker.pending:
        await anyio.sleep(0.005)
    outcome = decision.pop("outcome", "allowed-once")
    assert broker.decide(key, outcome, **decision)


async def approve_with_click(
    broker: Broker, request: ApprovalRequest, key: str, *, editable: bool = False, **click: Any
) -> Decision:
    result: list[Decision] = []
    async with anyio.create_task_group() as tg:
        tg.start_soon(functools.partial(decide_when_pending, broker, key, **click))

        async def approve() -> None:
            result.append(await broker.approve_call(request, editable=editable))

        tg.start_soon(approve)
    return result[0]
