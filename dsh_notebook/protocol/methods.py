"""Client→server requests and their results (the seed's ``HarnessSdkRequestMap``)."""

from __future__ import annotations

from typing import Annotated, Any, Literal, Union

from pydantic import Field

from .base import WireModel
from .content import PromptBlock

__all__ = [
    "CLIENT_METHODS",
    "EmptyResult",
    "InitializeCapabilities",
    "InitializeParams",
    "InitializeResult",
    "ServerInfo",
    "SessionPromptParams",
    "SessionPromptResult",
    "SessionQueryCommandResult",
    "SessionQueryParams",
    "SessionQueryPromptResult",
    "SessionQueryResult",
    "SessionResumeParams",
    "SessionWaitParams",
    "WorkingDirectoryParams",
    "WorkingDirectoryResult",
    "WorkingDirectorySetParams",
]


class InitializeCapabilities(WireModel):
    user_questions: bool | None = None


class InitializeParams(WireModel):
    cwd: str
    provider: str
    model: str
    reasoning_effort: Annotated[str, Field(min_length=1)] | None = None
    max_tokens: Annotated[int, Field(gt=0, le=2**53 - 1)] | None = None
    approval_requests: bool | None = None
    capabilities: InitializeCapabilities | None = None


class ServerInfo(WireModel):
    name: str
    version: str | None = None


class InitializeResult(WireModel):
    server_info: ServerInfo
    capabilities: dict[str, Any] | None = None


class SessionPromptParams(WireModel):
    session_id: str
    content_blocks: list[PromptBlock]


class SessionPromptResult(WireModel):
    """``messageId`` means *queued*: the id of the user message, matched by the receipt event."""

    message_id: str


class SessionQueryParams(WireModel):
    session_id: str
    content_blocks: list[PromptBlock]


class SessionQueryPromptResult(WireModel):
    kind: Literal["prompt"] = "prompt"
    message_id: str


class SessionQueryCommandResult(WireModel):
    kind: Literal["command"] = "command"
    execution: dict[str, Any] = {}


SessionQueryResult = Annotated[
    Union[SessionQueryPromptResult, SessionQueryCommandResult],  # noqa: UP007
    Field(discriminator="kind"),
]


class SessionResumeParams(WireModel):
    session_id: Annotated[str, Field(min_length=1)]


class SessionWaitParams(WireModel):
    session_id: str


class WorkingDirectoryParams(WireModel):
    session_id: str


class WorkingDirectorySetParams(WireModel):
    session_id: str
    path: str


class WorkingDirectoryResult(WireModel):
    cwd: str


class EmptyResult(WireModel):
    """``{}`` (resume, wait, shutdown). Extra fields from a newer runtime are kept."""


CLIENT_METHODS: dict[str, tuple[type[WireModel] | None, Any]] = {
    "initialize": (InitializeParams, InitializeResult),
    "session/prompt": (SessionPromptParams, SessionPromptResult),
    "session/query": (SessionQueryParams, SessionQueryResult),
    "session/resume": (SessionResumeParams, EmptyResult),
    "session/wait": (SessionWaitParams, EmptyResult),
    "session/working-directory/get": (WorkingDirectoryParams, WorkingDirectoryResult),
    "session/working-directory/set": (WorkingDirectorySetParams, WorkingDirectoryResult),
    "shutdown": (None, EmptyResult),
}
