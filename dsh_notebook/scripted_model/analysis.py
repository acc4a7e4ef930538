"""Request analysis: which script, step and attempt answer a Messages request (pure functions).

The endpoint picks the script and the step from the request alone, so it needs no per-session
state and works when parent and subagent requests interleave:

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
:attr:`~.steps.ScriptContext.tags`; built-in scripts understand ``target``, ``chunks``,
``chunk-delay`` and ``fail-times`` (see :data:`~.builtin.BUILTIN_SCRIPTS`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, Final

from ..context.notebook_context import CONTEXT_OPEN
from .steps import LatestUserKind, RequestAnalysis

__all__ = [
    "NOTICE_MESSAGE_PREFIXES",
    "NOTICE_PREFIXES",
    "RequestAnalysis",
    "analyze_request",
    "parse_tags",
    "tool_result_text",
]

#: Leading texts of text blocks that the runtime or the package adds to a user message (not
#: human text): the runtime-context snapshot, the report-back instruction given to a subagent
#: child, the text handle placed before an inline image, the runtime's two warnings beside the
#: result of a call repeated with identical arguments, and the notebook context block that
#: ``%%dsh`` sends after the person's text.
NOTICE_PREFIXES: Final[tuple[str, ...]] = (
    "Current runtime context.",
    "Your parent agent id is ",
    "Image sha256:",
    "You are repeating the exact same tool call",
    "Repeated tool call detected:",
    CONTEXT_OPEN,
)

#: Leading texts of user messages that the runtime writes as a whole (notices). Every text block
#: of such a message is runtime-written, including quoted text (a settled child's closing
#: message): the subagent-settled notice and the working-directory change notice.
NOTICE_MESSAGE_PREFIXES: Final[tuple[str, ...]] = (
    "Background subagent ",
    "The working directory changed from ",
)

_TAG_RE: Final = re.compile(r"\[\[([A-Za-z][A-Za-z0-9_-]*):([^\[\]]*)\]\]")


def parse_tags(text: str) -> dict[str, str]:
    """All ``[[key:value]]`` tags in ``text`` (values stripped; the last occurrence wins)."""
    return {match.group(1): match.group(2).strip() for match in _TAG_RE.finditer(text)}


def tool_result_text(content: Any, sep: str) -> str:
    """The text of a ``tool_result`` block's ``content``: the string itself, or its ``text``
    blocks joined by ``sep`` (other blocks left out); ``""`` for anything else."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return sep.join(
            str(b.get("text", ""))
            for b in content
            if isinstance(b, Mapping) and b.get("type") == "text"
        )
    return ""


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

    latest_kind: LatestUserKind = "none"
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
