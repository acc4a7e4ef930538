"""Scripts for the scripted fake model endpoint (:mod:`dsh_notebook.scripted_model.server`).

A *script* is a list of *steps*; one step is one model reply (one HTTP response). The endpoint
picks the script and the step from the request alone, so it needs no per-session state and
works when parent and subagent requests interleave:

* **Script** - the ``[[scenario:NAME]]`` tag of the latest human prompt (see
  :func:`analyze_request`): the latest user message that contains human text. Text the runtime
  adds by itself (the runtime-context snapshot, the "report back" instruction given to subagent
  children, image handles, subagent-settled and working-directory notices) is not human text,
  and ``tool_result`` blocks are not text at all. So after a tool call, or when a background
  subagent has settled, the tag found is still the one of the prompt that started the work. A
  request whose latest prompt has no tag gets the ``plain`` script. (The runtime merges a new
  prompt into the previous user message when that one got no answer, e.g. after a failed turn;
  the newest prompt is then read from the ``dsh_session_log`` field, and otherwise the last tag
  of the merged message wins.)
* **Step** - the number of assistant messages after the tagged user message, i.e. how many
  model replies this scenario has already produced.
* **Attempt** - how many failed attempts of the current step the runtime has already logged
  (``assistant/attempt`` events in the request's ``dsh_session_log`` extension field). This is
  what lets an error step fail only for the first N attempts and then succeed, statelessly.

Other tags (``[[key:value]]``) in the tagged message are handed to the script as
:attr:`ScriptContext.tags`; built-in scripts understand ``target``, ``chunks``,
``chunk-delay`` and ``fail-times`` (see :data:`BUILTIN_SCRIPTS`).

Everything here is immutable (frozen dataclasses) except :class:`ScriptRegistry`, whose methods
are thread-safe. Scripts may be registered from Python by users::

    from dsh_notebook.scripted_model.scripts import Script, Step, ToolCall

    server.register("greet-twice", Script(steps=(
        Step(text="Running it.", tool_calls=(ToolCall("bash", {"description": "hi",
                                                               "command": "echo hi"}),)),
        Step(text="Done.", chunks=3),
    )))

Step factories (callables ``ScriptContext -> Step``) can be used instead of a fixed step when a
reply depends on the prompt (tags, attempt number, notices in the request).
"""

from __future__ import annotations

import re
import shlex
import threading
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Final, Literal

__all__ = [
    "AfterReply",
    "BASH_COMMAND",
    "BUILTIN_SCRIPTS",
    "CHILD_ANSWER",
    "CHILD_PROMPT",
    "ESCALATE_DEFAULT_PREFIX",
    "LONG_DEFAULT_CHUNKS",
    "PLAIN_ANSWER",
    "SLOW_DEFAULT_CHUNKS",
    "SLOW_DEFAULT_CHUNK_DELAY",
    "SUBAGENT_FINAL",
    "SUBAGENT_INTERIM",
    "WRITE_CONTENT",
    "DEFAULT_SCENARIO",
    "NOTICE_MESSAGE_PREFIXES",
    "NOTICE_PREFIXES",
    "HttpError",
    "RequestAnalysis",
    "Script",
    "ScriptContext",
    "ScriptRegistry",
    "Step",
    "StepFactory",
    "ToolCall",
    "analyze_request",
    "default_registry",
    "long_text_chunks",
    "parse_tags",
]

StopReason = Literal["end_turn", "tool_use", "max_tokens", "stop_sequence"]

#: Scenario used for requests without a ``[[scenario:...]]`` tag.
DEFAULT_SCENARIO: Final = "plain"

#: Leading texts of text blocks that the runtime adds to a user message (not human text): the
#: runtime-context snapshot, the report-back instruction given to a subagent child, and the text
#: handle placed before an inline image.
NOTICE_PREFIXES: Final[tuple[str, ...]] = (
    "Current runtime context.",
    "Your parent agent id is ",
    "Image sha256:",
)

#: Leading texts of user messages that the runtime writes as a whole (notices). Every text block
#: of such a message is runtime-written, including quoted text (a settled child's closing
#: message): the subagent-settled notice and the working-directory change notice.
NOTICE_MESSAGE_PREFIXES: Final[tuple[str, ...]] = (
    "Background subagent ",
    "The working directory changed from ",
)

_TAG_RE: Final = re.compile(r"\[\[([A-Za-z][A-Za-z0-9_-]*):([^\[\]]*)\]\]")
_NAME_RE: Final = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")


# --------------------------------------------------------------------------------------------
# Steps
# --------------------------------------------------------------------------------------------


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
    """Hold a reply until the server has *finished* replying to another session's request.

    The server waits until it has sent the whole reply to a request of session
    :attr:`session_id` whose body mentions :attr:`mention`, then :attr:`grace` seconds more,
    and only then answers (at most :attr:`timeout` seconds in all; then it answers anyway).
    This orders replies across sessions that the runtime runs concurrently: the ``child``
    script uses it so that a subagent settles only after its parent's turn has ended (see
    :func:`_child_answer`).

    Attributes:
        session_id: the session whose reply is awaited (``x-deepseek-harness-session-id``).
        mention: a text the awaited request's body must contain (e.g. the child's id in the
            parent's tool result); empty matches any request of that session.
        grace: seconds to wait after that reply was sent.
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
    def full_text(self) -> str:
        """The whole answer text (the joined deltas)."""
        return "".join(self.text_deltas())

    @property
    def effective_stop_reason(self) -> StopReason:
        """The ``stop_reason`` sent in ``message_delta``."""
        if self.stop_reason is not None:
            return self.stop_reason
        return "tool_use" if self.tool_calls else "end_turn"


@dataclass(frozen=True)
class ScriptContext:
    """What a step factory knows about the request it answers.

    Attributes:
        scenario: the selected script name.
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
        body: the parsed request body (read-only view; do not mutate).
        session_id: the ``x-deepseek-harness-session-id`` header of the request (the child's
            own id for a subagent's calls), ``None`` when absent.
    """

    scenario: str
    step_index: int
    attempt: int
    tags: Mapping[str, str]
    prompt_text: str
    notices: tuple[str, ...]
    latest_user_kind: Literal["human", "tool_result", "notice", "none"]
    body: Mapping[str, Any]
    session_id: str | None = None

    def int_tag(self, key: str, default: int, *, minimum: int = 0) -> int:
        """Integer value of tag ``key``; ``default`` when absent or not an integer."""
        try:
            value = int(self.tags[key])
        except (KeyError, ValueError):
            return default
        return max(minimum, value)

    def float_tag(self, key: str, default: float, *, minimum: float = 0.0) -> float:
        """Float value of tag ``key``; ``default`` when absent or not a number."""
        try:
            value = float(self.tags[key])
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
    """

    steps: tuple[Step | StepFactory, ...]
    description: str = ""
    after_last: Step | None = None

    def __post_init__(self) -> None:
        if not self.steps:
            raise ValueError("a Script needs at least one step")

    def step_for(self, context: ScriptContext) -> Step:
        """Resolve the step for ``context`` (calls factories; applies :attr:`after_last`)."""
        index = context.step_index
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


def _as_script(script: Script | Sequence[Step | StepFactory]) -> Script:
    if isinstance(script, Script):
        return script
    return Script(steps=tuple(script))


class ScriptRegistry:
    """Name -> :class:`Script` map; all methods are thread-safe."""

    def __init__(self, scripts: Mapping[str, Script] | None = None) -> None:
        self._lock = threading.Lock()
        self._scripts: dict[str, Script] = {}
        for name, script in (scripts or {}).items():
            self.register(name, script)

    def register(self, name: str, script: Script | Sequence[Step | StepFactory]) -> None:
        """Add or replace script ``name`` (letters, digits, ``_ . -``; starts alphanumeric).

        A plain sequence of steps is wrapped in a :class:`Script`.
        """
        if not _NAME_RE.match(name):
            raise ValueError(f"invalid scenario name {name!r}")
        resolved = _as_script(script)
        with self._lock:
            self._scripts[name] = resolved

    def unregister(self, name: str) -> None:
        """Remove script ``name``; missing names are ignored."""
        with self._lock:
            self._scripts.pop(name, None)

    def get(self, name: str) -> Script | None:
        """The script called ``name``, or ``None``."""
        with self._lock:
            return self._scripts.get(name)

    def names(self) -> list[str]:
        """Sorted script names."""
        with self._lock:
            return sorted(self._scripts)

    def __contains__(self, name: object) -> bool:
        with self._lock:
            return name in self._scripts

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())

    def __len__(self) -> int:
        with self._lock:
            return len(self._scripts)


# --------------------------------------------------------------------------------------------
# Request analysis
# --------------------------------------------------------------------------------------------


def parse_tags(text: str) -> dict[str, str]:
    """All ``[[key:value]]`` tags in ``text`` (values stripped; the last occurrence wins)."""
    return {match.group(1): match.group(2).strip() for match in _TAG_RE.finditer(text)}


def _split_message(message: Mapping[str, Any]) -> tuple[list[str], list[str], bool]:
    """(human texts, runtime-written texts, has tool_result blocks) of one user message."""
    content = message.get("content")
    texts: list[str] = []
    has_tool_result = False
    if isinstance(content, str):
        texts.append(content)
    elif isinstance(content, list):
        for block in content:
            if not isinstance(block, Mapping):
                continue
            kind = block.get("type")
            if kind == "text" and isinstance(block.get("text"), str):
                texts.append(block["text"])
            elif kind == "tool_result":
                has_tool_result = True
    if texts and texts[0].lstrip().startswith(NOTICE_MESSAGE_PREFIXES):
        return [], texts, has_tool_result
    human = [t for t in texts if not t.lstrip().startswith(NOTICE_PREFIXES)]
    notices = [t for t in texts if t.lstrip().startswith(NOTICE_PREFIXES)]
    return human, notices, has_tool_result


@dataclass(frozen=True)
class RequestAnalysis:
    """Result of :func:`analyze_request` (independent of any registry).

    Attributes:
        scenario: the tag value, or ``None`` for untagged requests.
        step_index: assistant messages after the tagged (or latest human) user message.
        attempt: failed attempts of the current step already logged by the runtime.
        tags: all tags of the tagged prompt (last occurrence wins).
        prompt_text: human text of that message.
        notices: runtime-written text blocks of the latest user message.
        latest_user_kind: see :attr:`ScriptContext.latest_user_kind`.
    """

    scenario: str | None
    step_index: int
    attempt: int
    tags: Mapping[str, str]
    prompt_text: str
    notices: tuple[str, ...]
    latest_user_kind: Literal["human", "tool_result", "notice", "none"]


def _attempt_number(body: Mapping[str, Any]) -> int:
    """Failed attempts of the current step, from the ``dsh_session_log`` extension field.

    The log holds the session events since the last accepted (2xx) delivery. The current step
    is the last ``step/start`` in it; every ``assistant/attempt`` of that turn and step is a
    failed attempt of the step being retried now.
    """
    log = body.get("dsh_session_log")
    if not isinstance(log, Mapping):
        return 0
    events = log.get("events")
    if not isinstance(events, list):
        return 0
    current: tuple[Any, Any] | None = None
    for event in events:
        if isinstance(event, Mapping) and event.get("type") == "step/start":
            data = event.get("data")
            if isinstance(data, Mapping):
                current = (data.get("turn"), data.get("step"))
    if current is None:
        return 0
    count = 0
    for event in events:
        if isinstance(event, Mapping) and event.get("type") == "assistant/attempt":
            data = event.get("data")
            if isinstance(data, Mapping) and (data.get("turn"), data.get("step")) == current:
                count += 1
    return count


def _logged_prompt(body: Mapping[str, Any]) -> list[str] | None:
    """Human text blocks of the newest prompt in ``dsh_session_log``, if it holds one.

    The log holds the events since the last accepted delivery, so a prompt appears in it only in
    the first request that carries it. There it is exact even when the runtime has merged
    several prompts into one Messages user message (it does so after a failed turn).
    """
    log = body.get("dsh_session_log")
    events = log.get("events") if isinstance(log, Mapping) else None
    if not isinstance(events, list):
        return None
    for event in reversed(events):
        if not isinstance(event, Mapping) or event.get("type") != "user/message":
            continue
        data = event.get("data")
        if not isinstance(data, Mapping):
            continue
        source = data.get("source")
        if not isinstance(source, Mapping) or source.get("kind") != "user":
            continue
        human, _, _ = _split_message(data)
        return human
    return None


def analyze_request(body: Mapping[str, Any]) -> RequestAnalysis:
    """Find scenario, step and attempt for a Messages request body (pure function).

    The *tagged message* is the latest user message with human text: text blocks that do not
    start with one of :data:`NOTICE_PREFIXES`, in a message whose first text block does not
    start with one of :data:`NOTICE_MESSAGE_PREFIXES`. The step index counts the assistant
    messages after it.

    The tags are read from the newest prompt logged in ``dsh_session_log`` when the request
    carries one (first step of a turn), otherwise from the human text of the tagged message;
    when a tag key occurs several times the last occurrence wins (the runtime merges a prompt
    into the previous user message when that one got no answer, and the newer prompt comes
    last). No ``[[scenario:NAME]]`` tag means ``scenario=None``.
    """
    raw = body.get("messages")
    messages: list[Mapping[str, Any]] = (
        [m for m in raw if isinstance(m, Mapping)] if isinstance(raw, list) else []
    )

    latest_kind: Literal["human", "tool_result", "notice", "none"] = "none"
    notices: tuple[str, ...] = ()
    for message in reversed(messages):
        if message.get("role") != "user":
            continue
        human, runtime_texts, has_tool_result = _split_message(message)
        notices = tuple(runtime_texts)
        if human:
            latest_kind = "human"
        elif has_tool_result:
            latest_kind = "tool_result"
        else:
            latest_kind = "notice"
        break

    tagged_index: int | None = None
    human_texts: list[str] = []
    for index in range(len(messages) - 1, -1, -1):
        message = messages[index]
        if message.get("role") != "user":
            continue
        human, _, _ = _split_message(message)
        if human:
            tagged_index = index
            human_texts = human
            break

    start = 0 if tagged_index is None else tagged_index + 1
    step_index = sum(1 for m in messages[start:] if m.get("role") == "assistant")
    logged = _logged_prompt(body)
    if logged is not None and step_index == 0:
        human_texts = logged
    prompt_text = "\n".join(human_texts)
    tags = parse_tags(prompt_text)
    scenario = tags.get("scenario") or None
    return RequestAnalysis(
        scenario=scenario,
        step_index=step_index,
        attempt=_attempt_number(body),
        tags=MappingProxyType(tags),
        prompt_text=prompt_text,
        notices=notices,
        latest_user_kind=latest_kind,
    )


# --------------------------------------------------------------------------------------------
# Built-in scripts
# --------------------------------------------------------------------------------------------

BASH_COMMAND: Final = "echo hello-from-bash > bash-out.txt && cat bash-out.txt"
CHILD_PROMPT: Final = "[[scenario:child]] Say hello from the child."
SUBAGENT_INTERIM: Final = "Started the subagent; waiting for it."
SUBAGENT_FINAL: Final = "The child said hello."
CHILD_ANSWER: Final = "Hello from the child subagent."
PLAIN_ANSWER: Final = "Hello from the fake model!"
WRITE_CONTENT: Final = "written by the scripted model\n"
LONG_DEFAULT_CHUNKS: Final = 2000
SLOW_DEFAULT_CHUNKS: Final = 20
SLOW_DEFAULT_CHUNK_DELAY: Final = 0.1
ESCALATE_DEFAULT_PREFIX: Final = "/tmp/dsh-escalated-"


def long_text_chunks(count: int) -> list[str]:
    """The deltas of the ``long`` script: ``["w0 ", "w1 ", ..., "w<count-1>"]``."""
    if count < 1:
        raise ValueError("count must be >= 1")
    return [f"w{i} " for i in range(count - 1)] + [f"w{count - 1}"]


def _final(text: str) -> Step:
    return Step(text=text)


def _bash(description: str, command: str, **extra: str) -> ToolCall:
    return ToolCall("bash", {"description": description, "command": command, **extra})


def _escalate_step(ctx: ScriptContext) -> Step:
    target = ctx.tags.get("target") or f"{ESCALATE_DEFAULT_PREFIX}{uuid.uuid4().hex[:12]}"
    return Step(
        text="This needs a write outside the workspace.",
        tool_calls=(
            _bash(
                "Touch a file outside the workspace",
                f"touch {shlex.quote(target)} && echo touched",
                sandbox_permissions="danger-full-access",
                justification="The integration test must write outside the workspace.",
            ),
        ),
    )


def _subagent_interim(ctx: ScriptContext) -> Step:
    # The child's reply is held until this reply has been sent (see _child_answer), so the
    # settled notice arrives after this turn and starts the next one. Should it ever arrive with
    # the tool result anyway, answer with the final text right away.
    if any(n.startswith("Background subagent ") for n in ctx.notices):
        return _final(SUBAGENT_FINAL)
    return _final(SUBAGENT_INTERIM)


_PARENT_ID_RE: Final = re.compile(r'Your parent agent id is "([^"]+)"')


def _child_answer(ctx: ScriptContext) -> Step:
    """The subagent child's answer, sent only after the parent's turn has ended.

    The runtime delivers a child's settled notice by the parent's status at that moment
    (``sendWaking``: *steer* into the running turn, or *queue* a new turn when the parent is
    idle), so without an order the parent's turn count depends on which of the two sessions
    the runtime happens to finish first. Holding the child's reply until the parent's reply to
    the request that carries this child's id (the ``started subagent <id>`` tool result) has
    been sent, plus a grace for the runtime to end that turn, makes the order fixed: the
    parent's first turn ends with the interim text, the notice starts turn 2.
    """
    match = next((m for n in ctx.notices if (m := _PARENT_ID_RE.search(n))), None)
    if match is None or not ctx.session_id:
        return _final(CHILD_ANSWER)
    return Step(text=CHILD_ANSWER, after_reply=AfterReply(match.group(1), mention=ctx.session_id))


def _notebook_inspect(ctx: ScriptContext) -> Step:
    name = ctx.tags.get("var", "df")
    return Step(
        text=f"Let me look at `{name}` in your kernel.",
        tool_calls=(ToolCall("mcp__notebook__describe_variable", {"name": name}),),
    )


def _notebook_analyze(ctx: ScriptContext) -> Step:
    name = ctx.tags.get("var", "df")
    by = ctx.tags.get("by", "region")
    column = ctx.tags.get("column", "revenue")
    code = (
        f"region_totals = {name}.groupby({by!r})[{column!r}].sum().sort_values(ascending=False)\n"
        "region_totals"
    )
    return Step(
        text="I will compute the totals in your kernel (this asks for your approval).",
        tool_calls=(ToolCall("mcp__notebook__run_python", {"code": code}),),
    )


def _long_step(ctx: ScriptContext) -> Step:
    count = ctx.int_tag("chunks", LONG_DEFAULT_CHUNKS, minimum=1)
    return Step(text_chunks=tuple(long_text_chunks(count)))


def _slow_step(ctx: ScriptContext) -> Step:
    count = ctx.int_tag("chunks", SLOW_DEFAULT_CHUNKS, minimum=1)
    delay = ctx.float_tag("chunk-delay", SLOW_DEFAULT_CHUNK_DELAY)
    return Step(
        text_chunks=(*(f"slow{i} " for i in range(count - 1)), f"slow{count - 1}"),
        chunk_delay=delay,
    )


def _failing(error: HttpError, recovered: str, default_times: int | None) -> StepFactory:
    def factory(ctx: ScriptContext) -> Step:
        times: int | None = default_times
        if "fail-times" in ctx.tags:
            times = ctx.int_tag("fail-times", default_times or 0)
        return Step(text=recovered, error=error, fail_times=times)

    return factory


_E400 = HttpError(400, "invalid_request_error", "scripted invalid request")
_E429 = HttpError(429, "rate_limit_error", "scripted rate limit", retry_after="0")
_E500 = HttpError(500, "api_error", "scripted server error")

_BUILTINS: dict[str, Script] = {
    "plain": Script(
        steps=(Step(thinking="The user wants a greeting.", text=PLAIN_ANSWER),),
        description="one text answer (with a thinking block); also used for untagged requests",
    ),
    "bash": Script(
        steps=(
            Step(
                text="I will run a command.",
                tool_calls=(_bash("Write and print a file", BASH_COMMAND),),
            ),
            _final("The command printed hello-from-bash."),
        ),
        description="bash tool call writing and printing bash-out.txt, then an answer",
    ),
    "parallel": Script(
        steps=(
            Step(
                text="Running two commands in parallel.",
                tool_calls=(
                    _bash("First command", "echo parallel-one"),
                    _bash("Second command", "echo parallel-two"),
                ),
            ),
            _final("Both commands ran."),
        ),
        description="two bash calls in one reply, then an answer",
    ),
    "write": Script(
        steps=(
            Step(
                text="Writing the file.",
                tool_calls=(
                    ToolCall("write", {"file_path": "written.txt", "content": WRITE_CONTENT}),
                ),
            ),
            _final("Wrote written.txt."),
        ),
        description="write tool creating written.txt, then an answer",
    ),
    "escalate": Script(
        steps=(_escalate_step, _final("The escalation attempt is finished.")),
        description="bash call asking for danger-full-access to touch [[target:/abs/path]] "
        f"(default {ESCALATE_DEFAULT_PREFIX}<hex>), then an answer",
    ),
    "readonly-write": Script(
        steps=(
            Step(
                text="Writing with a wider sandbox.",
                tool_calls=(
                    ToolCall(
                        "write",
                        {
                            "file_path": "readonly-written.txt",
                            "content": WRITE_CONTENT,
                            "sandbox_permissions": "workspace-write",
                            "justification": "The test must write into the workspace.",
                        },
                    ),
                ),
            ),
            _final("The write attempt is finished."),
        ),
        description="write tool asking for workspace-write (for read-only mode), then an answer",
    ),
    "ask": Script(
        steps=(
            Step(
                tool_calls=(
                    ToolCall(
                        "ask_user_question",
                        {
                            "questions": [
                                {
                                    "id": "color",
                                    "question": "Which color?",
                                    "header": "Color",
                                    "options": [{"label": "Red"}, {"label": "Blue"}],
                                }
                            ]
                        },
                    ),
                ),
            ),
            _final("Thanks for answering."),
        ),
        description="ask_user_question call (unknown tool in the stock profile), then an answer",
    ),
    "subagent": Script(
        steps=(
            Step(
                tool_calls=(
                    ToolCall("subagent", {"description": "child task", "prompt": CHILD_PROMPT}),
                ),
            ),
            _subagent_interim,
            _final(SUBAGENT_FINAL),
        ),
        description="subagent call (child scenario 'child'), interim text, final text after "
        "the subagent-settled notice",
    ),
    "child": Script(
        steps=(_child_answer,),
        description="the subagent child's answer, sent after its parent's turn has ended",
    ),
    "long": Script(
        steps=(_long_step,),
        description=f"one answer in [[chunks:N]] text deltas (default {LONG_DEFAULT_CHUNKS})",
    ),
    "slow": Script(
        steps=(_slow_step,),
        description=f"one answer in [[chunks:N]] deltas (default {SLOW_DEFAULT_CHUNKS}), "
        f"[[chunk-delay:S]] apart (default {SLOW_DEFAULT_CHUNK_DELAY} s)",
    ),
    "http400": Script(
        steps=(_failing(_E400, "Recovered after an invalid request.", None),),
        description="HTTP 400 invalid_request_error on every attempt ([[fail-times:N]])",
    ),
    "http429": Script(
        steps=(_failing(_E429, "Recovered after a rate limit.", 1),),
        description="HTTP 429 (retry-after: 0) on the first attempt ([[fail-times:N]]), "
        "then an answer",
    ),
    "http429-always": Script(
        steps=(_failing(_E429, "Recovered after a rate limit.", None),),
        description="HTTP 429 (retry-after: 0) on every attempt",
    ),
    "http500": Script(
        steps=(_failing(_E500, "Recovered after a server error.", 1),),
        description="HTTP 500 api_error on the first attempt ([[fail-times:N]]), then an answer",
    ),
    "http500-always": Script(
        steps=(_failing(_E500, "Recovered after a server error.", None),),
        description="HTTP 500 api_error on every attempt (the runtime gives up after ~17 s)",
    ),
    "notebook-inspect": Script(
        steps=(
            _notebook_inspect,
            _final("I described the variable from your kernel (see the tool result)."),
        ),
        description="the notebook MCP tool describe_variable on [[var:NAME]] (default df), then an answer",
    ),
    "notebook-analyze": Script(
        steps=(
            _notebook_analyze,
            _final(
                "`region_totals` now holds the total per region, largest first, in your kernel."
            ),
        ),
        description="the notebook MCP tool run_python: region_totals = [[var:NAME]].groupby([[by:]])"
        "[[[column:]]].sum(), then an answer",
    ),
    "unknown-tool": Script(
        steps=(
            Step(
                text="Calling a tool that does not exist.",
                tool_calls=(ToolCall("no_such_tool", {}),),
            ),
            _final("That tool does not exist."),
        ),
        description="call of a tool named no_such_tool, then an answer",
    ),
}

#: The built-in scripts by name (read-only).
BUILTIN_SCRIPTS: Final[Mapping[str, Script]] = MappingProxyType(_BUILTINS)


def default_registry() -> ScriptRegistry:
    """A new registry holding the built-in scripts (changes to it affect only itself)."""
    return ScriptRegistry(BUILTIN_SCRIPTS)
