"""The notebook tools server as it was built on the official MCP SDK: the oracle the endpoint of
our own (:mod:`dsh_notebook.notebook_tools.mcp_endpoint`) is compared with, request by request.

:class:`SdkNotebookServer` is :class:`~dsh_notebook.notebook_tools.server.NotebookMcpServer` with
only its protocol layer swapped: the SDK's low-level ``Server`` in its stateless JSON
streamable-HTTP app, behind the same bearer check, calling the same tool handlers.
"""

from __future__ import annotations

from typing import Any

import mcp_types as mt
from mcp.server.lowlevel import Server

from dsh_notebook.notebook_tools.auth import BearerAuth
from dsh_notebook.notebook_tools.schemas import MCP_SERVER_NAME
from dsh_notebook.notebook_tools.server import NotebookMcpServer


class SdkNotebookServer(NotebookMcpServer[Any]):
    """The same tools and handlers, served by the SDK."""

    def _asgi_app(self) -> BearerAuth:
        async def list_tools(ctx: Any, params: Any) -> mt.ListToolsResult:
            return mt.ListToolsResult(tools=[mt.Tool.model_validate(t.wire()) for t in self._tools])

        async def call_tool(ctx: Any, params: mt.CallToolRequestParams) -> mt.CallToolResult:
            result = await self._call_tool(params.name, dict(params.arguments or {}))
            return mt.CallToolResult.model_validate(result.wire())

        lowlevel: Server[Any] = Server(
            MCP_SERVER_NAME,
            version="1",
            instructions=self._instructions(),
            on_list_tools=list_tools,
            on_call_tool=call_tool,
        )
        app = lowlevel.streamable_http_app(
            streamable_http_path="/mcp", json_response=True, stateless_http=True, host="127.0.0.1"
        )
        return BearerAuth(app, self.token)
