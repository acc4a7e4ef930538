"""Builders of runtime events and notifications for transcript tests, and the markdown checks."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from typing import Any

from markdown_it import MarkdownIt  # test dependency: markdown-it-py

from dsh_notebook.protocol import Notification
from dsh_notebook.transcript.markdown import STYLE
from dsh_notebook.transcript.sanitize import is_dangerous_url

from ..conftest import load_capture


def notifications(name: str) -> list[Notification]:
    return [
        Notification(r["frame"]["method"], r["frame"]["params"])
        for r in load_capture(f"{name}.jsonl")
        if r["dir"] == "s2c" and "method" in r["frame"] and "id" not in r["frame"]
    ]


def prompted_sessions(name: str) -> list[str]:
    out: list[str] = []
    for r in load_capture(f"{name}.jsonl"):
        frame = r["frame"]
        if (
            r["dir"] == "c2s"
            and isinstance(frame, dict)
            and frame.get("method") == "session/prompt"
        ):
            out.append(frame["params"]["sessionId"])
    return list(dict.fromkeys(out))


def stream_frames(
    session_id: str, event: dict[str, Any], n: int
) -> tuple[list[Notification], Notification]:
    """Bridge frames (``start`` + chunks, and the ``end``) rebuilt from an event's ``data.stream``."""
    attempt = f"{session_id}:{n}"

    def frame(body: dict[str, Any]) -> Notification:
        return Notification("session.assistant_stream", {"sessionId": session_id, "frame": body})

    out = [frame({"type": "start", "attemptId": attempt, "revision": n, "turn": 1, "step": 1})]
    index = 0

    def chunk(c: dict[str, Any]) -> None:
        nonlocal index
        out.append(
            frame(
                {
                    "type": "chunk",
                    "attemptId": attempt,
                    "revision": n,
                    "index": index,
                    "time": 0,
                    "chunk": c,
                }
            )
        )
        index += 1

    for record in event["data"].get("stream") or []:
        kind = record.get("type")
        if kind == "chunk":
            chunk(record["chunk"])
        elif kind in ("text-chunks", "reasoning-chunks"):
            ctype = "text-delta" if kind == "text-chunks" else "reasoning-delta"
            for text in record["texts"]:
                chunk({"type": ctype, "index": record["index"], "text": text})
        elif kind == "tool-call-chunks":
            for i, args in enumerate(record["args"]):
                c = {
                    "type": "tool-call-delta",
                    "index": record["index"],
                    "id": record["id"],
                    "argumentsDelta": args,
                }
                if i == 0 and record.get("name"):
                    c["name"] = record["name"]
                chunk(c)
    end = frame(
        {
            "type": "end",
            "attemptId": attempt,
            "revision": n,
            "index": index,
            "outcome": {"kind": "committed", "eventType": event["type"], "seq": event["seq"]},
        }
    )
    return out, end


def with_live_frames(items: list[Notification]) -> list[Notification]:
    """The capture as the bridge would deliver it: live frames around every model attempt."""
    out: list[Notification] = []
    n = 0
    for note in items:
        event = note.params.get("event") if note.method == "session.event" else None
        if (
            event
            and event["type"] in ("assistant/message", "assistant/attempt")
            and event["data"].get("stream")
        ):
            n += 1
            frames, end = stream_frames(note.params["sessionId"], event, n)
            out += [*frames, note, end]
        else:
            out.append(note)
    return out


def event(
    session_id: str, etype: str, data: dict[str, Any], seq: int = 0, **extra: Any
) -> Notification:
    return Notification(
        "session.event",
        {
            "sessionId": session_id,
            "event": {"type": etype, "seq": seq, "time": 0, "data": data, **extra},
        },
    )


def chunk_frame(session_id: str, attempt: str, index: int, chunk: dict[str, Any]) -> Notification:
    return Notification(
        "session.assistant_stream",
        {
            "sessionId": session_id,
            "frame": {
                "type": "chunk",
                "attemptId": attempt,
                "revision": 1,
                "index": index,
                "time": 0,
                "chunk": chunk,
            },
        },
    )


def assistant(
    session_id: str, *blocks: dict[str, Any], usage: dict[str, int] | None = None
) -> Notification:
    data: dict[str, Any] = {
        "turn": 1,
        "step": 1,
        "message": {"role": "assistant", "content": list(blocks)},
    }
    if usage:
        data["usage"] = usage
    return event(session_id, "assistant/message", data)


def tool_call(session_id: str, call_id: str, name: str, args: Any) -> Notification:
    raw = args if isinstance(args, str) else json.dumps(args)
    return event(
        session_id,
        "tool/call",
        {"turn": 1, "step": 1, "callId": call_id, "name": name, "arguments": raw},
    )


def tool_result(
    session_id: str,
    call_id: str,
    text: str,
    *,
    is_error: bool = False,
    error: dict[str, Any] | None = None,
) -> Notification:
    data: dict[str, Any] = {
        "message": {
            "role": "tool",
            "toolCallId": call_id,
            "content": [{"type": "text", "text": text}],
            "isError": is_error,
        }
    }
    if error:
        data["error"] = error
    return event(session_id, "tool/result", data)


class _Html(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, list[tuple[str, str | None]]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, attrs))


_ALLOWED_TAGS = {
    "p", "em", "strong", "a", "img", "code", "pre", "blockquote", "ul", "ol", "li", "hr", "br",
    "h1", "h2", "h3", "h4", "h5", "h6", "table", "thead", "tbody", "tr", "th", "td", "s", "del",
    "details", "summary",  # the renderer's own fold around a fenced block, never agent text
}  # fmt: skip


def _render(markdown: str) -> str:
    md = MarkdownIt("commonmark", {"html": True}).enable(["table", "strikethrough"])
    md.validateLink = lambda url: True  # type: ignore[method-assign]  # as permissive as trusted output
    return str(md.render(markdown))


def assert_safe_markdown(markdown: str) -> None:
    """No raw HTML tag beyond markdown's own, no ``on…=`` attribute, no dangerous link target.
    The renderer's one fixed ``<style>`` line (ours, last) is the only exception."""
    assert markdown.count("<style>") <= 1 and markdown.count(STYLE) == markdown.count("<style>")
    markdown = markdown.replace(STYLE, "")
    html = _render(markdown)
    parser = _Html()
    parser.feed(html)
    for tag, attrs in parser.tags:
        assert tag in _ALLOWED_TAGS, (tag, html)
        for name, value in attrs:
            assert not name.startswith("on"), (tag, name, html)
            if name in ("href", "src"):
                assert value is not None and not is_dangerous_url(value), (tag, value)
                assert not re.match(r"(?i)\s*(javascript|vbscript|data|file):", value)
    lowered = html.lower()
    for needle in ("<script", "<svg", "<iframe", "<div", "<!--"):
        assert needle not in lowered, needle
    # the raw markdown too, outside fenced blocks and inline code
    outside = _outside_code(markdown).lower()
    for needle in ("<script", "<img", "<svg", "javascript:"):
        assert needle not in outside, needle


def _outside_code(markdown: str) -> str:
    lines = markdown.split("\n")
    for token in MarkdownIt("commonmark").enable("table").parse(markdown):
        if token.type in ("fence", "code_block") and token.map:
            for i in range(token.map[0], token.map[1]):
                lines[i] = ""
    return re.sub(r"(`+)(?!`).*?(?<!`)\1(?!`)", "", "\n".join(lines))
