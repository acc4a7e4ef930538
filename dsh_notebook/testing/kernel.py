"""An in-process kernel for tests: an IPython shell with the extension loaded, its agent's runtime a
:class:`~dsh_notebook.testing.MockRuntime` on the host loop, and what would have been displayed
kept as typed records (marimo's ``MockedKernel``, for us). No subprocess, no thread of ours.

::

    kernel = InProcessKernel.load(InteractiveShell.instance())
    kernel.run_cell("-o answer", "[[reply:Forty-two]] what is it?")
    assert kernel.shell.user_ns["answer"].result().final_response == "Forty-two"
    kernel.unload()

Guarantees:

* **The runtime's side is the protocol** (:class:`ScriptedPeer`): every runtime start gets a new
  :class:`MockRuntime` served by one peer, which answers like the fake runtime's ``normal``
  scenario: a prompt is one turn whose answer is "Hello from the fake runtime." or TEXT for a
  ``[[reply:TEXT]]`` tag; the receipt and ``turn/start`` come before the ``{messageId}``
  response, the answer and ``turn/end`` before ``session/wait`` returns. Sessions that had a
  prompt are "persisted" across runtimes of one peer (``session/resume`` of any other is the
  runtime's ``not found``). ``session/working-directory/set`` accepts an existing directory and
  refuses any other path with the runtime's words. ``session/query`` and other methods get the
  runtime's unknown-method error. :attr:`ScriptedPeer.refuse_start` makes the next starts fail
  at ``initialize``.
* **An ``[[approval]]`` tag asks for consent** as the runtime asks for a sandbox escalation
  (``tests/captures/approval_rejected.jsonl``): the turn's ``bash`` call (``tool/call``), then
  ``approval/asked``; only if the client opted in on ``initialize`` (``approvalRequests``) the
  server request ``approval/request``, answered without a time limit; then ``approval/decided``
  and the ``tool/result`` ("ran" only for exactly ``{"outcome": "allowed-once"}``, else the
  runtime's refusal), before the answer. Every outcome is kept in :attr:`ScriptedPeer.approvals`
  (``"unavailable"`` without the opt-in), so a test can tell that a rejected command never ran.
  A ``[[delay:S]]`` tag holds the turn's end (and anything it asks) S seconds: a slow run.
* **A ``[[scenario:NAME]]`` tag plays a script** registered in :attr:`ScriptedPeer.scripts`
  (the scripted model's :class:`~dsh_notebook.scripted_model.Script`) as the runtime plays it:
  its notebook tool calls go over MCP to the server the kernel mounted (:mod:`.tool_turns`),
  and the turn's answer is the script's last step.
* **Only the harness is replaced**: the kernel's own code runs unchanged (magics, commands,
  broker, pump, ledger, conversations, locks, display), through
  :attr:`~dsh_notebook.kernel.host.RuntimeHost.harness_factory`.
* **What was displayed is kept** (:class:`RecordingDisplayPublisher`): every ``display`` and
  display update of the shell while loaded, in order, as :class:`Displayed` records; text the
  shell prints (terminal mode) still goes to stdout.
* **Who drives the shell is chosen at load**: a terminal (no kernel), nbclient
  (:class:`HeadlessKernel`) or a live page that offers stdin (:class:`LiveKernel`); either kernel
  may carry the execute request's ``metadata`` the page extension sends (the notebook identity).
"""

from __future__ import annotations

import itertools
import json
import os
from dataclasses import dataclass, field
from functools import partial
from typing import Any, NamedTuple

import anyio
from IPython.core.displaypub import DisplayPublisher

from ..client import DeepSeekHarness, HarnessConfig
from ..errors import INTERNAL_ERROR, JsonRpcError
from ..scripted_model import Script
from .mock_runtime import MockRuntime, standard_reply
from .tool_turns import NotebookToolsCaller, ToolTurns

__all__ = [
    "Displayed",
    "HeadlessKernel",
    "LiveKernel",
    "InProcessKernel",
    "RecordingDisplayPublisher",
    "ScriptedPeer",
]

DEFAULT_REPLY = "Hello from the fake runtime."
APPROVAL_TAG = "[[approval]]"
ESCALATION_REASON = "escalate sandbox to danger-full-access: a command outside the workspace"
_OUTCOMES = ("allowed-once", "rejected", "cancelled")


class _PeerHarness(DeepSeekHarness):
    """A harness whose runtime is ``runtime``: entering it enters the peer first (on the same
    loop and task, as :class:`MockRuntime` requires); leaving it closes the peer last."""

    def __init__(self, runtime: MockRuntime, config: HarnessConfig) -> None:
        super().__init__(config, client=runtime.client())
        self.runtime = runtime

    async def __aenter__(self) -> DeepSeekHarness:
        await self.runtime.__aenter__()
        try:
            return await super().__aenter__()
        except BaseException:
            await self.runtime.aclose()
            raise

    async def __aexit__(self, *exc: object) -> None:
        try:
            await super().__aexit__(*exc)
        finally:
            await self.runtime.aclose()


class ScriptedPeer:
    """The runtime side of an in-process kernel: one :class:`MockRuntime` per runtime start."""

    def __init__(self) -> None:
        self.runtimes: list[MockRuntime] = []
        """Every runtime started, in order (the last one is the live one)."""
        self.prompts: list[dict[str, Any]] = []
        """The params of every ``session/prompt`` received, over all runtimes."""
        self.persisted: set[str] = set()
        """Sessions that had a prompt: ``session/resume`` finds them in a later runtime."""
        self.refuse_start = False
        """When set, ``initialize`` fails (the runtime "cannot start")."""
        self.approvals: list[str] = []
        """The outcome of every approval an ``[[approval]]`` turn asked for, in order."""
        self.tools = ToolTurns()
        """Scripts a ``[[scenario:NAME]]`` prompt plays, with notebook tool calls
        (:mod:`.tool_turns`)."""
        self._seq = itertools.count()
        self._ids = itertools.count(1)
        self._turns: dict[str, _Turn] = {}  # session -> the turn still to finish

    @property
    def scripts(self) -> dict[str, Script]:
        """The scripts by scenario name (``peer.scripts["x"] = Script(...)``)."""
        return self.tools.scripts

    def harness(self, config: HarnessConfig) -> DeepSeekHarness:
        """A :data:`~dsh_notebook.kernel.host.HarnessFactory`: a new peer runtime for ``config``."""
        runtime = MockRuntime()
        tools = NotebookToolsCaller.from_config(config)  # the server this runtime mounts
        runtime.handler = partial(self._handle, runtime, tools)
        self.runtimes.append(runtime)
        return _PeerHarness(runtime, config)

    async def _event(
        self, runtime: MockRuntime, session_id: str, etype: str, data: dict[str, Any]
    ) -> None:
        event = {"type": etype, "seq": next(self._seq), "time": 0, "data": data}
        await runtime.notify("session.event", {"sessionId": session_id, "event": event})

    async def _handle(
        self,
        runtime: MockRuntime,
        tools: NotebookToolsCaller | None,
        method: str,
        params: dict[str, Any] | None,
    ) -> Any:
        if method == "initialize" and self.refuse_start:
            raise JsonRpcError(INTERNAL_ERROR, "the runtime could not start (refuse_start)")
        if method == "session/resume":
            assert params is not None
            sid = str(params.get("sessionId"))
            if sid not in self.persisted:
                raise JsonRpcError(INTERNAL_ERROR, f'session "{sid}" not found')
            return {}
        if method == "session/prompt":
            assert params is not None
            return await self._prompt(runtime, params)
        if method == "session/wait":
            assert params is not None
            await self._finish(runtime, tools, str(params["sessionId"]))
            return {}
        if method == "session/working-directory/set":
            assert params is not None
            return _set_directory(str(params.get("path")))
        return standard_reply(method, params)

    async def _prompt(self, runtime: MockRuntime, params: dict[str, Any]) -> dict[str, Any]:
        self.prompts.append(params)
        sid, blocks = str(params["sessionId"]), params["contentBlocks"]
        self.persisted.add(sid)
        message_id = f"msg-{next(self._ids)}"
        await self._event(runtime, sid, "permission/preset", {"preset": "workspace-write"})
        inserted = [{"id": message_id, "role": "user", "content": blocks}]
        await self._event(runtime, sid, "agent/inbox/spliced", {"inserted": inserted})
        await runtime.notify("session.status", {"sessionId": sid, "status": "running"})
        await self._event(runtime, sid, "turn/start", {"turn": 1})
        text = next((str(b.get("text", "")) for b in blocks if b.get("type") == "text"), "")
        delay = _tag(text, "delay")
        self._turns[sid] = _Turn(
            _tag(text, "reply") or DEFAULT_REPLY,
            APPROVAL_TAG in text,
            float(delay or 0),
            self.tools.script_for(text),
        )
        return {"messageId": message_id}

    async def _finish(
        self, runtime: MockRuntime, tools: NotebookToolsCaller | None, sid: str
    ) -> None:
        turn = self._turns.pop(sid, None)
        if turn is None:
            return
        answer, asks, delay, script = turn
        await anyio.sleep(delay)
        if asks:
            await self._escalate(runtime, sid)
        if script is not None:
            emit = partial(self._event, runtime, sid)
            answer = await self.tools.play(script, emit, tools)
        message = {"role": "assistant", "content": [{"type": "text", "text": answer}]}
        await self._event(runtime, sid, "assistant/message", {"turn": 1, "message": message})
        reason = {"kind": "completed"}
        await self._event(runtime, sid, "turn/end", {"turn": 1, "reason": reason})
        await runtime.notify("session.status", {"sessionId": sid, "status": "idle"})

    async def _escalate(self, runtime: MockRuntime, sid: str) -> None:
        """The turn's ``bash`` call asks to leave the sandbox (see the module docstring)."""
        call_id, approval_id = f"call-{next(self._ids)}", f"approval-{next(self._ids)}"
        arguments = {"command": "echo ran", "sandbox_permissions": "danger-full-access"}
        call = {"turn": 1, "step": 1, "callId": call_id, "name": "bash"}
        await self._event(runtime, sid, "tool/call", {**call, "arguments": json.dumps(arguments)})
        asked = {"id": approval_id, "toolName": "bash", "callId": call_id}
        await self._event(runtime, sid, "approval/asked", {**asked, "reason": ESCALATION_REASON})
        outcome = "unavailable"
        (initialize, *_) = runtime.requests("initialize")
        if initialize["params"].get("approvalRequests") is True:
            params = {"sessionId": sid, "toolName": "bash", "callId": call_id}
            try:
                result = await runtime.request(
                    "approval/request", {**params, "reason": ESCALATION_REASON}, timeout=None
                )
            except JsonRpcError:
                result = None
            ok = isinstance(result, dict) and set(result) == {"outcome"}
            outcome = str(result["outcome"]) if ok else "rejected"
            outcome = outcome if outcome in _OUTCOMES else "rejected"
        self.approvals.append(outcome)
        await self._event(runtime, sid, "approval/decided", {"id": approval_id, "outcome": outcome})
        ran = outcome == "allowed-once"
        text = "ran\n" if ran else f"Error: escalating this command was {outcome}; it stays denied"
        message = {"role": "tool", "source": {"kind": "tool", "callId": call_id},
                   "toolCallId": call_id, "content": [{"type": "text", "text": text}],
                   "isError": not ran}  # fmt: skip
        await self._event(runtime, sid, "tool/result", {"turn": 1, "step": 1, "message": message})


class _Turn(NamedTuple):
    answer: str
    asks_approval: bool
    delay: float
    script: Script | None


def _tag(text: str, name: str) -> str:
    """The value of the first ``[[name:VALUE]]`` tag in ``text`` ('' when there is none)."""
    opening = f"[[{name}:"
    return text.split(opening, 1)[1].split("]]", 1)[0] if opening in text else ""


def _set_directory(path: str) -> dict[str, Any]:
    """``session/working-directory/set``: an existing directory, or the runtime's own error
    (runtime-0.2.1 notes §5.5)."""
    if not os.path.isdir(path):
        message = f"working-directory: directory does not exist: {json.dumps(path)}"
        raise JsonRpcError(INTERNAL_ERROR, message)
    return {"cwd": os.path.abspath(path)}


@dataclass(frozen=True)
class Displayed:
    """One display the shell published: a new output, or an update of one (``update``)."""

    data: dict[str, Any]
    metadata: dict[str, Any]
    display_id: str | None
    update: bool

    def text(self) -> str:
        """The output's ``text/plain`` ('' when it has none)."""
        return str(self.data.get("text/plain", ""))


class RecordingDisplayPublisher(DisplayPublisher):
    """A display publisher that keeps every display (:attr:`displayed`) instead of sending it."""

    def __init__(self, shell: Any = None, **kwargs: Any) -> None:
        super().__init__(shell=shell, **kwargs)  # type: ignore[no-untyped-call]
        self.displayed: list[Displayed] = []

    def publish(
        self,
        data: dict[str, Any],
        metadata: dict[str, Any] | None = None,
        source: Any = None,
        *,
        transient: dict[str, Any] | None = None,
        update: bool = False,
        **kwargs: Any,
    ) -> None:
        display_id = (transient or {}).get("display_id")
        self.displayed.append(Displayed(dict(data), dict(metadata or {}), display_id, update))

    def clear_output(self, wait: bool = False) -> None:
        pass


class HeadlessKernel:
    """What the agent reads of an ipykernel kernel, as nbclient drives one: no stdin, and no
    parent request unless :attr:`metadata` is set. With it on the shell, runs are shown as in a
    notebook nobody watches (one static transcript, displayed when the run settled) instead of
    printed as in a terminal."""

    _allow_stdin = False

    def __init__(self, metadata: dict[str, Any] | None = None) -> None:
        self.metadata = metadata
        """The metadata of the execute request being handled (``None``: no parent request), e.g.
        the notebook identity the page extension sends; a test may change it between cells."""

    def get_parent(self, channel: str = "shell") -> dict[str, Any] | None:
        if self.metadata is None:
            return None
        header = {"msg_type": "execute_request"}
        return {"header": header, "msg_type": "execute_request", "metadata": self.metadata}


class LiveKernel(HeadlessKernel):
    """A live frontend (JupyterLab, Notebook 7): the request offers stdin, so a ``%%dsh`` cell
    returns at once and its run goes on in the background (:class:`HeadlessKernel` otherwise)."""

    _allow_stdin = True


@dataclass
class InProcessKernel:
    """A shell with the extension loaded on a :class:`ScriptedPeer`, displays recorded."""

    shell: Any
    peer: ScriptedPeer = field(default_factory=ScriptedPeer)
    publisher: RecordingDisplayPublisher = field(default_factory=RecordingDisplayPublisher)
    _saved_pub: Any = None
    driver: HeadlessKernel | None = None
    """The kernel object on the shell (``shell.kernel``), or ``None`` in terminal mode."""

    @classmethod
    def load(
        cls,
        shell: Any,
        peer: ScriptedPeer | None = None,
        *,
        headless: bool = False,
        driver: HeadlessKernel | None = None,
    ) -> InProcessKernel:
        """Load the extension into ``shell`` (bridge off) on ``peer`` (a new one by default).
        ``driver`` becomes ``shell.kernel`` (a :class:`HeadlessKernel` or :class:`LiveKernel`);
        ``headless`` is short for ``driver=HeadlessKernel()``; terminal mode without either."""
        if driver is None and headless:
            driver = HeadlessKernel()
        kernel = cls(shell, peer or ScriptedPeer(), driver=driver)
        kernel._saved_pub = shell.display_pub
        shell.display_pub = kernel.publisher
        if driver is not None:
            shell.kernel = driver
        kernel.load_extension()
        return kernel

    @property
    def magics(self) -> Any:
        return self.shell._dsh_notebook_magics

    @property
    def agent(self) -> Any:
        return self.magics.agent

    @property
    def displayed(self) -> list[Displayed]:
        return self.publisher.displayed

    def load_extension(self) -> None:
        """``%load_ext dsh_notebook``, its runtime on the peer (bridge off)."""
        self.shell.run_line_magic("load_ext", "dsh_notebook")
        self.wire()

    def wire(self) -> None:
        """Point the loaded extension's runtime at the peer (after a ``%load_ext`` of its own)."""
        self.magics.bridge = False
        self.agent.host.harness_factory = self.peer.harness

    def reload(self) -> None:
        """A restarted kernel: unload and load the extension (same ``DSH_HOME``, same peer)."""
        self.shell.run_line_magic("unload_ext", "dsh_notebook")
        self.load_extension()

    def run_cell(self, line: str, cell: str) -> Any:
        """``%%dsh line`` with ``cell``; what the magic returned."""
        return self.shell.run_cell_magic("dsh", line, cell)

    def unload(self) -> None:
        """Unload the extension (closing its runtime) and give the shell its publisher back."""
        try:
            self.shell.run_line_magic("unload_ext", "dsh_notebook")
        finally:
            self.shell.user_ns.pop("_dsh", None)
            if self.driver is not None:
                del self.shell.kernel
            if self._saved_pub is not None:
                self.shell.display_pub = self._saved_pub
