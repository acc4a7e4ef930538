"""Steps and scripts: what the scripted model answers, as immutable values.

A *script* is a list of *steps*; one step is one model reply (one HTTP response). Which script and
which step answer a request is decided from the request alone (:mod:`.analysis`). Everything here
is immutable (frozen dataclasses). Scripts may be registered from Python by users::

    from dsh_notebook.scripted_model import Script, Step, ToolCall

    server.register("greet-twice", Script(steps=(
        Step(text="Running it.", tool_calls=(ToolCall("bash", {"description": "hi",
                                                               "command": "echo hi"}),)),
        Step(text="Done.", chunks=3),
    )))

Step factories (callables ``ScriptContext -> Step``) can be used instead of a fixed step when a
reply depends on the prompt (tags, attempt number, notices in the request).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar

__all__ = [
    "AfterReply",
    "HttpError",
    "LatestUserKind",
    "RequestAnalysis",
    "Script",
    "ScriptContext",
    "Step",
    "StepFactory",
    "StopReason",
    "ToolCall",
]

_Number = TypeVar("_Number", int, float)

StopReason = Literal["end_turn", "tool_use", "max_tokens", "stop_sequence"]

#: What the latest user message of a request is (see :attr:`ScriptContext.latest_user_kind`).
LatestUserKind = Literal["human", "tool_result", "notice", "none"]


@dataclass(frozen=True)
class ToolCall:
    """One ``tool_use`` block of a reply.

    Attributes:
        name: tool name as the runtime knows it (``bash``, ``write``, ``subagent``, ...).
        input: the tool arguments; must be a JSON object (serialised with :func:`json.dumps`).
        id: the ``tool_use`` id. ``None`` (default) generates a fresh ``toolu_<hex>`` id per
            reply, so ids are unique per request; set it only to test duplicate-id handling.
        json_chunks: number of ``input_json_delta`` pieces the serialised input is split into.
    """

    name: str
    input: Mapping[str, Any] = field(default_factory=dict)
    id: str | None = None
    json_chunks: int = 1

    def __post_init__(self) -> None:
        if not self.name:
            raise ValueError("ToolCall.name must be non-empty")
        if self.json_chunks < 1:
            raise ValueError("ToolCall.json_chunks must be >= 1")


@dataclass(frozen=True)
class HttpError:
    """An HTTP error reply with an Anthropic error body.

    The body is ``{"type": "error", "error": {"type": error_type, "message": message}}``.

    Attributes:
        status: HTTP status code (e.g. 400, 429, 500).
        error_type: Anthropic error type (``invalid_request_error``, ``rate_limit_error``,
            ``api_error``, ``overloaded_error``, ``authentication_error``, ...).
        message: error message; the runtime uses it as the failure message.
        retry_after: value of a ``retry-after`` header (seconds or an HTTP date); ``None``
            sends no such header.
    """

    status: int
    error_type: str
    message: str
    retry_after: str | None = None

    def __post_init__(self) -> None:
        if not 400 <= self.status <= 599:
            raise ValueError("HttpError.status must be a 4xx or 5xx code")

    def body(self) -> dict[str, Any]:
        """The JSON error body."""
        return {"type": "error", "error": {"type": self.error_type, "message": self.message}}


@dataclass(frozen=True)
class AfterReply:
    """Hold a reply until another session's turn has ended.

    The server waits until it has sent the whole reply to a request of session
    :attr:`session_id` whose body mentions :attr:`mention`, and then until that session's turn
    has ended, and only then answers (at most :attr:`timeout` seconds in all; then it answers
    anyway). "Ended" is exact when the server is told the runtime's session statuses
    (:meth:`~.server.ScriptedModelServer.report_session_status`, as the kernel's demo model
    is): the session was reported ``idle`` after the awaited request. Without statuses it is a
    guess: :attr:`grace` seconds after the reply was sent.

    This orders replies across sessions that the runtime runs concurrently: the ``child``
    script and the demo analyst use it so that a subagent settles only after its parent's turn
    has ended. The runtime delivers a settled child's notice by the parent's status at that
    moment (``sendWaking``: *steer* into the running turn, or *queue* a new turn when the
    parent is idle), so without the order the parent's turn count would depend on timing.

    Attributes:
        session_id: the session whose reply is awaited (``x-deepseek-harness-session-id``).
        mention: a text the awaited request's body must contain (e.g. the child's id in the
            parent's tool result); empty matches any request of that session.
        grace: seconds to wait after that reply was sent, when no statuses are reported.
        timeout: the longest the hold lasts.
    """

    session_id: str
    mention: str = ""
    grace: float = 0.3
    timeout: float = 10.0


@dataclass(frozen=True)
class Step:
    """One model reply.

    A successful reply streams, in this order: an optional thinking block (one
    ``thinking_delta`` and one ``signature_delta``), an optional text block, then one
    ``tool_use`` block per tool call (several calls = parallel tool calls in one reply).

    Attributes:
        text: answer text. Sent only when non-empty (or when ``text_chunks`` is given).
        chunks: number of ``text_delta`` events ``text`` is split into (by characters; capped at
            ``len(text)``).
        text_chunks: explicit ``text_delta`` payloads; overrides ``text`` and ``chunks``.
        thinking: thinking text; ``None`` sends no thinking block.
        signature: signature sent in the thinking block's ``signature_delta``.
        tool_calls: tool calls of this reply.
        delay: seconds to wait before replying (before the status line).
        chunk_delay: seconds to wait before each text delta after the first ("slow" streaming).
        error: reply with this HTTP error instead of a stream.
        fail_times: with ``error``: fail only the first N attempts of this step (attempts are
            counted from the request, see :class:`ScriptContext`), then send the normal reply.
            ``None`` fails every attempt.
        stop_reason: override; default ``tool_use`` when there are tool calls, else ``end_turn``.
        input_tokens, output_tokens: usage reported in ``message_start``/``message_delta``.
        after_reply: hold this reply until another session's reply was sent
            (:class:`AfterReply`); ``None`` answers at once.

    A step with no thinking, no text and no tool calls makes the runtime fail the attempt with
    ``EMPTY_RESPONSE``; that is allowed on purpose.
    """

    text: str = ""
    chunks: int = 1
    text_chunks: tuple[str, ...] | None = None
    thinking: str | None = None
    signature: str = "sig"
    tool_calls: tuple[ToolCall, ...] = ()
    delay: float = 0.0
    chunk_delay: float = 0.0
    error: HttpError | None = None
    fail_times: int | None = None
    stop_reason: StopReason | None = None
    input_tokens: int = 11
    output_tokens: int = 7
    after_reply: AfterReply | None = None

    def __post_init__(self) -> None:
        if self.chunks < 1:
            raise ValueError("Step.chunks must be >= 1")
        if self.delay < 0 or self.chunk_delay < 0:
            raise ValueError("Step delays must be >= 0")
        if self.fail_times is not None and self.fail_times < 0:
            raise ValueError("Step.fail_times must be >= 0")

    def fails(self, attempt: int) -> bool:
        """Whether the attempt with this 0-based number gets :attr:`error`."""
        if self.error is None:
            return False
        return self.fail_times is None or attempt < self.fail_times

    def text_deltas(self) -> list[str]:
        """The ``text_delta`` payloads this step streams (empty list: no text block)."""
        if self.text_chunks is not None:
            return list(self.text_chunks)
        if not self.text:
            return []
        n = min(self.chunks, len(self.text))
        size, extra = divmod(len(self.text), n)
        out: list[str] = []
        pos = 0
        for i in range(n):
            end = pos + size + (1 if i < extra else 0)
            out.append(self.text[pos:end])
            pos = end
        return out

    @property
    def effective_stop_reason(self) -> StopReason:
        """The ``stop_reason`` sent in ``message_delta``."""
        if self.stop_reason is not None:
            return self.stop_reason
        return "tool_use" if self.tool_calls else "end_turn"


@dataclass(frozen=True)
class RequestAnalysis:
    """What a request body says (independent of any registry): the result of
    :func:`~dsh_notebook.scripted_model.analysis.analyze_request`.

    Attributes:
        scenario: the ``[[scenario:…]]`` tag's value, or ``None`` for untagged requests.
        step_index: 0-based step number (assistant messages after the tagged user message).
        attempt: 0-based attempt number of this step (failed attempts already logged by the
            runtime for the current turn and step; 0 when the request carries no session log).
        tags: all ``[[key:value]]`` tags of the tagged prompt (last occurrence wins).
        prompt_text: the human text of the tagged user message (tags included).
        notices: runtime-written text blocks of the latest user message (e.g. a
            subagent-settled notice), in order.
        latest_user_kind: what the latest user message is: ``"human"`` (a prompt),
            ``"tool_result"`` (results of the previous reply's tool calls), ``"notice"``
            (only runtime-written text) or ``"none"`` (no user message).
    """

    scenario: str | None
    step_index: int
    attempt: int
    tags: Mapping[str, str]
    prompt_text: str
    notices: tuple[str, ...]
    latest_user_kind: LatestUserKind


@dataclass(frozen=True)
class ScriptContext(RequestAnalysis):
    """What a step factory knows about the request it answers: the request's analysis (see
    :class:`RequestAnalysis` for its fields), with

    Attributes:
        scenario: the selected script name (the tag's, else the server's default scenario).
        body: the parsed request body (read-only view; do not mutate).
        session_id: the ``x-deepseek-harness-session-id`` header of the request (the child's
            own id for a subagent's calls), ``None`` when absent.
    """

    scenario: str
    body: Mapping[str, Any]
    session_id: str | None = None

    def int_tag(self, key: str, default: int, *, minimum: int = 0) -> int:
        """Integer value of tag ``key``; ``default`` when absent or not an integer."""
        return self._number_tag(key, int, default, minimum)

    def float_tag(self, key: str, default: float, *, minimum: float = 0.0) -> float:
        """Float value of tag ``key``; ``default`` when absent or not a number."""
        return self._number_tag(key, float, default, minimum)

    def _number_tag(
        self, key: str, kind: type[_Number], default: _Number, minimum: _Number
    ) -> _Number:
        """Tag ``key`` as ``kind``, at least ``minimum``; ``default`` when absent or not one."""
        try:
            value = kind(self.tags[key])
        except (KeyError, ValueError):
            return default
        return max(minimum, value)


#: A callable that builds the step for a request.
StepFactory = Callable[[ScriptContext], Step]


@dataclass(frozen=True)
class Script:
    """A scripted conversation: ``steps[i]`` answers the i-th model call of the scenario.

    Attributes:
        steps: fixed :class:`Step` objects or :data:`StepFactory` callables.
        description: one line for listings and error messages.
        after_last: the step used when the scenario is asked for more steps than it has
            (e.g. the model is called again after the final answer). ``None`` answers with a
            short text saying the script is exhausted, which ends the turn.
        repeat_last: the last step (usually a factory that reads the whole request, like the
            demo analyst) answers every later step too; ``after_last`` is then never used.
    """

    steps: tuple[Step | StepFactory, ...]
    description: str = ""
    after_last: Step | None = None
    repeat_last: bool = False

    def __post_init__(self) -> None:
        if not self.steps:
            raise ValueError("a Script needs at least one step")

    def step_for(self, context: ScriptContext) -> Step:
        """Resolve the step for ``context`` (calls factories; applies :attr:`after_last`)."""
        index = context.step_index
        if self.repeat_last:
            index = min(index, len(self.steps) - 1)
        if index >= len(self.steps):
            if self.after_last is not None:
                return self.after_last
            return Step(
                text=f"[scripted model] scenario {context.scenario!r} has no step {index}; "
                "ending the turn."
            )
        step = self.steps[index]
        if isinstance(step, Step):
            return step
        result = step(context)
        if not isinstance(result, Step):
            raise TypeError(f"step factory {step!r} returned {type(result).__name__}, not Step")
        return result
