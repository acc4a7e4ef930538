"""The demo model: what runs answer when no API key and no model endpoint is configured.

It is the scripted model endpoint on 127.0.0.1, started on first use and stopped with the kernel's
agent. Routing: a prompt without a ``[[scenario:NAME]]`` tag goes to the demo analyst
(:mod:`dsh_notebook.analyst`, the server's default scenario), which answers from the kernel's real
data through the notebook and runtime tools; a tagged prompt gets that scripted scenario (the
tests' canned replies, unchanged). The one-line notice that runs use it is shown in the run's
header (the model label), not printed as an error.

The kernel's runtime client feeds the server the runtime's session statuses
(:meth:`DemoModel.observe`), so a delegated question's transcript is the same every run: the
subagent's report is held until its parent's turn has ended (``AfterReply``), told by the
runtime's own ``session.status``, not guessed from a delay.
"""

from __future__ import annotations

import os
import threading
from typing import Any

from ..protocol import SESSION_STATUS, Notification
from .options.settings import KernelSettings

__all__ = ["DEMO_API_KEY", "DEMO_LABEL", "DemoModel", "demo_active"]

DEMO_LABEL = "demo analyst — no API key set"
DEMO_API_KEY = "demo-no-key"


def _env(name: str) -> str | None:
    return os.environ.get(name) or None


def demo_active(settings: KernelSettings) -> bool:
    """Whether runs go to the demo model: ``demo_model`` on, or auto with no key and no URL."""
    if settings.demo_model != "auto":
        return settings.demo_model == "on"
    return not (
        settings.api_key
        or _env("DEEPSEEK_API_KEY")
        or settings.base_url
        or _env("DEEPSEEK_BASE_URL")
    )


class DemoModel:
    """The demo model server of one kernel. Thread-safe; :meth:`stop` is idempotent."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._server: Any = None

    def endpoint(self) -> str:
        """The base URL, starting the server on first use."""
        with self._lock:
            if self._server is None:
                from ..analyst import ANALYST_SCENARIO, analyst_script
                from ..scripted_model import ScriptedModelServer

                self._server = ScriptedModelServer(
                    scripts={ANALYST_SCENARIO: analyst_script()},
                    default_scenario=ANALYST_SCENARIO,
                ).start()
            return str(self._server.base_url)

    def observe(self, notification: Notification) -> None:
        """Hand one runtime notification to the running server (its ``session.status`` ones
        order a subagent's report after its parent's turn). Called on the runtime host's loop
        for every notification: cheap, never raises, does nothing before the server started."""
        server = self._server
        if server is not None and notification.method == SESSION_STATUS:
            server.observe(notification.method, notification.params)

    def stop(self) -> None:
        with self._lock:
            server, self._server = self._server, None
        if server is not None:
            server.stop()
