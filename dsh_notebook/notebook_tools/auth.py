"""The notebook MCP server's HTTP authentication: one bearer token per server.

:class:`BearerAuth` wraps the ASGI app: every HTTP request must carry exactly one
``Authorization: Bearer <token>`` header equal to the server's token (compared in constant time);
anything else gets ``401`` with a JSON body and never reaches MCP. Non-HTTP scopes (lifespan)
pass through.
"""

from __future__ import annotations

import hmac

from .mcp_endpoint import ASGIApp, Receive, Scope, Send

__all__ = ["BearerAuth"]


class BearerAuth:
    """ASGI wrapper: ``401`` unless ``Authorization: Bearer <token>`` matches exactly."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self._app = app
        self._expected = f"Bearer {token}".encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            values = [v for k, v in scope.get("headers", ()) if k.lower() == b"authorization"]
            if len(values) != 1 or not hmac.compare_digest(values[0], self._expected):
                body = b'{"error":"unauthorized: a valid bearer token is required"}'
                await send(
                    {
                        "type": "http.response.start",
                        "status": 401,
                        "headers": [
                            (b"content-type", b"application/json"),
                            (b"content-length", str(len(body)).encode()),
                            (b"www-authenticate", b'Bearer realm="dsh-notebook"'),
                        ],
                    }
                )
                await send({"type": "http.response.body", "body": body})
                return
        await self._app(scope, receive, send)
