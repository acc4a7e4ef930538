"""``Session``: one conversation; ``run`` collects one activity interval into a ``RunResult``.

``Session.run`` follows the seed algorithm — subscribe to the session tree *before* writing, send
``session/prompt``, find the receipt (``agent/inbox/spliced`` whose ``inserted[].id`` is the returned
message id), collect from the receipt on — but it ends when ``session/wait`` for the root returns,
not at the first root ``idle``. Background subagents and the follow-up turn they trigger are
therefore inside the result (the official Python SDK returns an interim answer there).

Ordering: ``notifications`` holds every notification of the tree from the receipt on, in transport
order; ``events`` the root's ``session.event`` payloads among them. ``session/wait``'s response
follows every notification committed during the wait, so nothing of the interval is missed.

Cancellation: cancelling ``run`` (or its ``timeout``) abandons only the local wait; the runtime goes
on with the turn (there is no cancel on the wire). The subscription is always closed.
"""

from __future__ import annotations

import inspect
import uuid
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

import anyio

from ..errors import DshError, RequestTimeout, SdkProtocolError, TransportClosed
from ..protocol import (
    SESSION_QUERY_COMPLETED,
    Notification,
    SessionQueryCommandResult,
)
from .prompt import PromptInput, normalize_input
from .results import NotificationList, RunResult, build_result, receipt_ids
from .routing import END, Subscription

if TYPE_CHECKING:
    from .low_level import HarnessClient

__all__ = ["NotificationCallback", "RunResult", "Session"]

NotificationCallback = Callable[[Notification], "Awaitable[None] | None"]


class Session:
    """A conversation with one session id. Cheap: holds no resources of its own.

    Several sessions of one harness may run concurrently; two ``run`` calls on the same session
    queue as consecutive turns in the runtime.
    """

    def __init__(self, client: HarnessClient, session_id: str | None = None) -> None:
        self.client = client
        self.id = session_id if session_id is not None else str(uuid.uuid4())
        self.last_result: RunResult | None = None

    def __repr__(self) -> str:
        return f"Session(id={self.id!r})"

    async def run(
        self,
        input: PromptInput,
        on_notification: NotificationCallback | None = None,
        *,
        timeout: float | None = None,
    ) -> RunResult:
        """Send ``input`` and return when the whole session tree has settled.

        ``on_notification`` sees every notification of the result as it arrives, in order (sync or
        async; an exception it raises propagates and abandons the local wait).
        Raises :class:`PromptError` before sending for invalid input, :class:`RequestTimeout` (a
        :class:`TimeoutError`, with the stderr tail) when ``timeout`` elapses,
        :class:`TransportClosed` if the runtime dies, :class:`SdkProtocolError` for malformed
        frames; no other exception type, except what ``on_notification`` itself raises.
        """
        blocks = normalize_input(input)

        async def send(sub: Subscription) -> RunResult:
            prompt = await self.client.session_prompt(self.id, blocks)
            return await self._observe(sub, prompt.message_id, on_notification)

        return await self._settled(send, timeout)

    async def _settled(
        self, send: Callable[[Subscription], Awaitable[RunResult]], timeout: float | None
    ) -> RunResult:
        """``send`` on a fresh subscription to this session, within ``timeout`` (``None``: no
        bound; when it elapses, :class:`RequestTimeout`); its result becomes :attr:`last_result`."""
        try:
            with self.client.subscribe([self.id]) as sub, anyio.fail_after(timeout):
                result = await send(sub)
        except TimeoutError as exc:
            raise self._typed_timeout(exc, timeout) from None
        self.last_result = result
        return result

    def _typed_timeout(self, exc: TimeoutError, timeout: float | None) -> Exception:
        """The local ``timeout`` as :class:`RequestTimeout`; a typed timeout stays as it is."""
        if isinstance(exc, DshError) or timeout is None:
            return exc
        return RequestTimeout("session/wait", timeout, stderr_tail=self.client._stderr_tail())

    async def query(
        self,
        input: PromptInput,
        on_notification: NotificationCallback | None = None,
        *,
        timeout: float | None = None,
    ) -> RunResult:
        """``session/query``: like :meth:`run`, but the runtime may execute a slash command.

        Raises :class:`UnsupportedByRuntime` when the runtime does not serve ``session/query``
        (0.2.1-rc.2 does not); detected once per client.
        """
        blocks = normalize_input(input)

        async def send(sub: Subscription) -> RunResult:
            answer = await self.client.session_query(self.id, blocks)
            if isinstance(answer, SessionQueryCommandResult):
                return await self._observe_command(sub, answer, on_notification)
            return await self._observe(sub, answer.message_id, on_notification)

        return await self._settled(send, timeout)

    async def _observe(
        self, sub: Subscription, message_id: str, on_notification: NotificationCallback | None
    ) -> RunResult:
        collected = NotificationList()
        receipt_seen = False
        failure: Exception | None = None
        async with anyio.create_task_group() as tg:

            async def wait_then_mark_end() -> None:
                try:
                    await self.client.session_wait(self.id)
                except Exception as exc:  # surfaces, unwrapped, from sub.receive()
                    sub.fail(exc)
                    return
                sub.put_end()

            tg.start_soon(wait_then_mark_end)
            try:
                while True:
                    item = await sub.receive()
                    if item is END:
                        break
                    assert isinstance(item, Notification)
                    if not receipt_seen:
                        if message_id not in receipt_ids(item, self.id):
                            continue
                        receipt_seen = True
                    collected.append(item)
                    if on_notification is not None:
                        maybe = on_notification(item)
                        if inspect.isawaitable(maybe):
                            await maybe
            except Exception as exc:  # re-raised below, not wrapped in an ExceptionGroup
                failure = exc
            tg.cancel_scope.cancel()
        if failure is not None:
            raise failure
        if self.client.closing:
            # the runtime answers a pending session/wait while it shuts down: not a settled run
            raise TransportClosed("the harness was closed before the run settled")
        if not receipt_seen:
            raise SdkProtocolError(
                f"the session settled without the receipt of message {message_id} "
                "(agent/inbox/spliced); the runtime broke the protocol"
            )
        try:
            return build_result(self.id, collected)
        except SdkProtocolError as exc:
            tail = self.client._stderr_tail()
            if exc.stderr_tail or not tail:
                raise
            error = SdkProtocolError(str(exc), stderr_tail=tail)
        raise error

    async def _observe_command(
        self,
        sub: Subscription,
        answer: SessionQueryCommandResult,
        on_notification: NotificationCallback | None,
    ) -> RunResult:
        command_id = answer.execution.get("commandId") or answer.execution.get("id")
        collected = NotificationList()
        while True:
            item = await sub.receive()
            if item is END:  # pragma: no cover - no END is queued for commands
                continue
            assert isinstance(item, Notification)
            collected.append(item)
            if on_notification is not None:
                maybe = on_notification(item)
                if inspect.isawaitable(maybe):
                    await maybe
            if item.method == SESSION_QUERY_COMPLETED and (
                command_id is None or item.params.get("commandId") == command_id
            ):
                base = build_result(self.id, collected)
                final = item.params.get("finalResponse")
                reason = item.params.get("finishReason")
                return RunResult(
                    self.id,
                    final if isinstance(final, str) else base.final_response,
                    reason if isinstance(reason, str) else base.finish_reason,
                    base.events,
                    collected,
                )

    async def prompt(self, input: PromptInput) -> str:
        """Queue ``input`` without waiting for anything; the queued message id."""
        result = await self.client.session_prompt(self.id, normalize_input(input))
        return result.message_id

    async def wait(self) -> None:
        """Return once this session and all its subagents are idle."""
        await self.client.session_wait(self.id)

    async def get_working_directory(self) -> str:
        return await self.client.get_working_directory(self.id)

    async def set_working_directory(self, path: str) -> str:
        """Change the current directory (absolute, or relative to the current one; must exist)."""
        return await self.client.set_working_directory(self.id, path)
