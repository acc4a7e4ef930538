"""The API key never leaves the kernel in a notebook tool's result: the masking function, the
result walker, and the in-kernel MCP server over HTTP (every tool's result, error paths included,
masked with the secrets of the moment of the call). Servers bind 127.0.0.1 only."""

from __future__ import annotations

import base64
import json
import threading
import time
from collections.abc import Callable
from typing import Any

import httpx
import pytest
from IPython.core.interactiveshell import InteractiveShell

from dsh_notebook.notebook_tools import read_tools as read_tools_module
from dsh_notebook.notebook_tools.edits import Grant
from dsh_notebook.notebook_tools.executor import MainThreadExecutor
from dsh_notebook.notebook_tools.masking import mask_result
from dsh_notebook.notebook_tools.mcp_shapes import ImageBlock, TextBlock, ToolResult
from dsh_notebook.notebook_tools.server import (
    NotebookMcpServer,
    NotebookToolsSettings,
    environment_secrets,
)
from dsh_notebook.notebook_tools.tool_texts import WITHHELD_MESSAGE
from dsh_notebook.runtime.secret import MASK, Secret, redact

from .helpers.mcp_tools import run_cells

KEY = "sk-test-secret-123"
PROTOCOL = "2025-06-18"
HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


def pieces(key: str, size: int = 8) -> list[str]:
    """Every ``size``-character piece of ``key``: none may reach the model."""
    return [key[i : i + size] for i in range(len(key) - size + 1)]


def assert_no_key(text: str, key: str = KEY) -> None:
    assert key not in text
    for piece in pieces(key):
        assert piece not in text, (piece, text)


# -- the masking function ---------------------------------------------------------------------------


def test_redact_masks_the_key_and_its_cut_pieces() -> None:
    secrets = [KEY]
    assert redact(f"key={KEY}; again {KEY}", secrets) == "key=***; again ***"
    # a cap cut the key in two: the piece before a marker, the tail after "[… N chars cut]"
    cut = f"value: {KEY[:11]} [… 40 characters omitted …]"
    assert redact(cut, secrets) == "value: *** [… 40 characters omitted …]"
    assert redact(f"[… 99 characters omitted …]\n{KEY[5:]}!", secrets) == (
        "[… 99 characters omitted …]\n***!"
    )
    # pieces shorter than 8 characters are kept: too short to tell from ordinary text
    assert redact("sk-test and secret-", secrets) == "sk-test and secret-"
    # a Secret (what settings hold) is masked by its value, not by its masked str()
    assert redact(f"x {KEY} y", [Secret(KEY)]) == "x *** y"
    # short secrets: whole occurrences only (as redact); empty or tiny ones are ignored
    assert redact("a pin 1234 here", ["1234", "", "ab"]) == "a pin *** here"
    assert redact("nothing to hide", []) == "nothing to hide"


def test_redact_never_makes_a_text_longer() -> None:
    texts = [KEY * 3, KEY[:9] + KEY[4:], "x" * 70 + KEY[:8], "a" + KEY + "b" + KEY[2:12]]
    for text in texts:
        masked = redact(text, [KEY])
        assert len(masked) <= len(text) and MASK in masked
        assert_no_key(masked)


def test_mask_result_masks_every_text_but_not_images() -> None:
    png = base64.b64encode(b"\x89PNG" + KEY.encode()).decode()  # bytes, not text to search
    result = ToolResult(
        (TextBlock(f"stdout:\n{KEY}\n"), ImageBlock(png), TextBlock(f"k {KEY[:10]}…")),
        is_error=True,
    )
    masked = mask_result(result, (KEY,))
    assert_no_key(json.dumps([b.wire() for b in masked.content if isinstance(b, TextBlock)]))
    text, image, tail = masked.content
    assert text == TextBlock("stdout:\n***\n") and tail == TextBlock("k ***…")
    assert image == ImageBlock(png)
    assert masked.is_error
    assert result.content[0] == TextBlock(f"stdout:\n{KEY}\n")  # the given result is not changed
    assert mask_result(result, ()) is result  # nothing to mask: as it is
    clean = ToolResult((TextBlock("fine"),))
    assert mask_result(clean, (KEY,)) is clean


# -- the server: every tool's result, with the secrets of the call ----------------------------------


def tool_call(server: NotebookMcpServer, name: str, /, **arguments: Any) -> dict[str, Any]:
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": name, "arguments": arguments}}  # fmt: skip
    headers = {
        **HEADERS,
        "Authorization": f"Bearer {server.token}",
        "mcp-protocol-version": PROTOCOL,
    }
    response = httpx.post(server.url, json=body, headers=headers, timeout=10)
    assert response.status_code == 200, response.text
    result: dict[str, Any] = response.json()["result"]
    return result


def text_of(result: dict[str, Any]) -> str:
    return "".join(block.get("text", "") for block in result["content"])


def test_server_masks_the_secrets_named_at_the_call(
    shell: InteractiveShell, make_server: Callable[..., NotebookMcpServer]
) -> None:
    """A key that becomes a secret later (typed with ``%dsh key``) is masked from then on."""
    run_cells(shell, f"token = {KEY!r}", "print(token)")
    current: list[str] = []
    server = make_server(secrets=lambda: tuple(current), errors={})
    assert KEY in text_of(tool_call(server, "notebook_variables"))  # not a secret (yet)
    current.append(KEY)
    calls: list[tuple[str, dict[str, Any]]] = [
        ("notebook_variables", {}),
        ("describe_variable", {"name": "token"}),
        ("notebook_history", {"n": 5}),
        ("notebook_cells", {}),  # no page: the history, saying so
    ]
    for name, args in calls:
        result = tool_call(server, name, **args)
        text = text_of(result)
        assert MASK in text, (name, text)
        assert_no_key(str(result))


def test_server_default_secret_is_the_environment_key(
    shell: InteractiveShell,
    make_server: Callable[..., NotebookMcpServer],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("DEEPSEEK_API_KEY", raising=False)
    assert environment_secrets().values == ()
    run_cells(shell, f"token = {KEY!r}")
    server = make_server()
    monkeypatch.setenv("DEEPSEEK_API_KEY", KEY)  # set after the server started: still masked
    described = tool_call(server, "describe_variable", name="token")
    assert "[masked: DEEPSEEK_API_KEY]" in text_of(described)
    assert_no_key(str(described))


def test_server_masks_run_python_output_errors_and_figures(
    shell: InteractiveShell, make_server: Callable[..., NotebookMcpServer]
) -> None:
    pytest.importorskip("matplotlib")
    run_cells(shell, "import matplotlib\nmatplotlib.use('Agg')", f"token = {KEY!r}")

    async def allow(*, tool_name: str, reason: str, arguments: Any) -> Grant:
        return Grant()

    executor = MainThreadExecutor()
    server = make_server(approve=allow, executor=executor, secrets=lambda: (KEY,))

    def run(code: str) -> dict[str, Any]:
        box: dict[str, Any] = {}
        worker = threading.Thread(
            target=lambda: box.update(r=tool_call(server, "run_python", code=code))
        )
        worker.start()
        deadline = time.monotonic() + 20
        while worker.is_alive() and time.monotonic() < deadline:
            executor.pump()  # this test's main thread plays the kernel's main thread
            time.sleep(0.01)
        worker.join(1)
        result: dict[str, Any] = box["r"]
        return result

    printed = run("import sys\nprint(token)\nprint(token[:12], file=sys.stderr)\ntoken")
    assert not printed["isError"]
    assert text_of(printed).count(MASK) == 3, text_of(printed)  # stdout, stderr, the value
    raised = run("def check(k):\n    raise ValueError(f'rejected key {k}')\ncheck(token)")
    assert raised["isError"] and "ValueError: rejected key ***" in text_of(raised)
    drawn = run("import matplotlib.pyplot as plt\nfig, ax = plt.subplots()\nax.set_title(token)")
    assert not drawn["isError"] and '"***"' in text_of(drawn)  # the figure's description
    assert [b["type"] for b in drawn["content"]] == ["text", "image"]  # the PNG stays a PNG
    for result in (printed, raised, drawn):
        assert_no_key(text_of(result))


def test_server_masks_its_own_failure_messages(
    shell: InteractiveShell,
    make_server: Callable[..., NotebookMcpServer],
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    def broken(*args: Any, **kwargs: Any) -> str:
        raise RuntimeError(f"cannot list {KEY}")

    monkeypatch.setattr(read_tools_module, "notebook_variables", broken)
    server = make_server(secrets=lambda: (KEY,))
    failed = tool_call(server, "notebook_variables")
    assert failed["isError"] and "RuntimeError: cannot list ***" in text_of(failed)
    assert "cannot list ***" in caplog.text and "Traceback" in caplog.text  # the kernel log
    assert_no_key(caplog.text)
    unknown = tool_call(server, f"tool_{KEY}")
    assert unknown["isError"] and "unknown tool 'tool_***'" in text_of(unknown)


def test_server_withholds_a_result_it_cannot_check(
    shell: InteractiveShell, make_server: Callable[..., NotebookMcpServer]
) -> None:
    run_cells(shell, f"token = {KEY!r}")

    def lookup_fails() -> tuple[str, ...]:
        raise RuntimeError("settings unavailable")

    server = make_server(secrets=lookup_fails)
    result = tool_call(server, "describe_variable", name="token")
    assert result["isError"] and text_of(result) == WITHHELD_MESSAGE
    assert_no_key(str(result))


def test_masking_keeps_results_within_the_cap(
    shell: InteractiveShell, make_server: Callable[..., NotebookMcpServer]
) -> None:
    cap = 600
    run_cells(shell, f"keys = [{KEY!r}] * 400", "print(keys)")
    server = make_server(settings=NotebookToolsSettings(max_chars=cap), secrets=lambda: (KEY,))
    calls: list[tuple[str, dict[str, Any]]] = [
        ("describe_variable", {"name": "keys"}),
        ("notebook_history", {"n": 3}),
    ]
    for name, args in calls:
        text = text_of(tool_call(server, name, **args))
        assert len(text) <= cap and MASK in text
        assert_no_key(text)
