"""The person's own MCP servers in this kernel: read, checked and mounted at each runtime start.

:meth:`UserMcp.mount` (called with the config on every runtime start, any thread) reads the
file (:mod:`~dsh_notebook.notebook_tools.user_servers`), starts each server once to ask for its
tools (:mod:`~dsh_notebook.notebook_tools.user_probe`) and writes the patch that mounts the ones
that answered (:func:`~dsh_notebook.notebook_tools.patch.write_user_patch`), their tools behind
the runtime's approval. **Fail closed**: a bad entry or a server that does not start is left
out, and is one line (:meth:`UserMcp.take_notes`: the next run shows it once, as a note); the
runtime starts without it. :meth:`UserMcp.lines` is ``%dsh mcp``.

Thread-safety: one lock over the state; the probe (seconds at most) runs outside it.
"""

from __future__ import annotations

import atexit
import logging
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from ...notebook_tools.user_servers import (
    Problem,
    UserServer,
    load_servers,
    secret_values,
    server_files,
)

if TYPE_CHECKING:
    from ...notebook_tools.patch import McpMount
    from ...notebook_tools.user_probe import ServerCheck

__all__ = ["UserMcp"]

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class _Looked:
    """One reading of the file and the servers' answers."""

    files: tuple[Path, ...]
    servers: tuple[UserServer, ...]
    problems: tuple[Problem, ...]
    checks: tuple[ServerCheck, ...] = field(default=())


class UserMcp:
    """The person's servers of one kernel (see the module docstring)."""

    def __init__(self, where: Callable[[], tuple[str | None, Path, Path]]) -> None:
        """``where()``: the ``mcp_servers`` setting, the workspace and ``DSH_HOME``, now."""
        self._where = where
        self._lock = threading.Lock()
        self._mounted: _Looked | None = None
        self._mount: McpMount | None = None
        self._notes: list[str] = []
        self._known: tuple[UserServer, ...] = ()

    def _look(self, probe: bool) -> _Looked:
        setting, workspace, home = self._where()
        files = server_files(setting, workspace, home)
        servers, problems = load_servers(files, required=setting is not None)
        with self._lock:  # their secrets are masked from the moment they are read
            self._known = tuple({s.name: s for s in (*self._known, *servers)}.values())
        checks: tuple[ServerCheck, ...] = ()
        if probe and servers:  # without ``mcp`` each check says so, and nothing is mounted
            from ...notebook_tools.user_probe import probe_servers

            # started where the runtime starts them: the workspace, unless the entry says
            started = [replace(s, cwd=str(workspace / (s.cwd or "."))) for s in servers]
            checks = tuple(probe_servers(started))
        return _Looked(tuple(files), tuple(servers), tuple(problems), checks)

    def mount(self, *, read_only: bool = False) -> McpMount | None:
        """Read, check and mount (a runtime starts): the patch of the servers that answered,
        or None. The previous patch is removed; the lines about what was left out are kept
        for :meth:`take_notes`. Never raises: whatever goes wrong here leaves the person's
        servers out (one line) and the runtime starts without them. ``read_only`` (a read-only
        runtime): no tool passes unasked, ``autoApprove`` ignored, so a read-only run's broker
        refuses every call of theirs."""
        try:
            return self._mount_now(read_only)
        except Exception as exc:
            note = f"MCP: your servers are left out ({type(exc).__name__}: {exc})"
            log.info("dsh: %s", note, exc_info=True)  # the note is the one line shown
            with self._lock:
                self._notes = [note[:300]]
            return None

    def _mount_now(self, read_only: bool) -> McpMount | None:
        looked = self._look(probe=True)
        good = [s for s, c in zip(looked.servers, looked.checks, strict=True) if c.ok]
        mount = None
        if good:
            from ...notebook_tools.patch import write_user_patch

            if read_only:
                good = [replace(s, auto_approve=()) for s in good]
            mount = write_user_patch(good)
            atexit.register(mount.remove)
        notes = [f"MCP: {p}" for p in looked.problems]
        notes += [
            f"MCP server {c.name} did not start ({c.error}); runs go on without it."
            for c in looked.checks
            if not c.ok
        ]
        for note in notes:
            log.info("dsh: %s", note)  # shown once as the next run's note, not twice
        with self._lock:
            old, self._mount, self._mounted = self._mount, mount, looked
            self._notes = notes
        if old is not None:
            old.remove()
            atexit.unregister(old.remove)
        return mount

    def current(self) -> McpMount | None:
        """The patch of the last start (None before one, or when no server answered)."""
        with self._lock:
            return self._mount

    def stop(self) -> None:
        """Remove the patch (the extension unloads). Idempotent."""
        with self._lock:
            old, self._mount = self._mount, None
        if old is not None:
            old.remove()
            atexit.unregister(old.remove)

    def take_notes(self) -> list[str]:
        """The lines of the last start about servers left out, once (the first run after it)."""
        with self._lock:
            notes, self._notes = self._notes, []
        return notes

    def secret_values(self) -> list[tuple[str, str]]:
        """``(value, label)`` of the secret ``env`` and ``headers`` values of every server read
        so far (:func:`~dsh_notebook.notebook_tools.user_servers.secret_values`)."""
        with self._lock:
            known = self._known
        return secret_values(known)

    def lines(self) -> list[str]:
        """``%dsh mcp``: each server, what it runs, and its tools or why it is left out. Before
        the runtime started with them, the file is read and the servers asked now."""
        with self._lock:
            looked = self._mounted
        fresh = looked is None
        if looked is None:
            try:
                looked = self._look(probe=True)
            except Exception as exc:
                return [f"dsh: your MCP servers cannot be read ({type(exc).__name__}: {exc})"]
        files = ", ".join(str(f) for f in looked.files) or "none (DshMagics.mcp_servers is '')"
        if not looked.servers and not looked.problems:
            return [f"dsh: no MCP servers of yours (files read: {files})"]
        head = "not mounted yet (the next runtime start mounts them)" if fresh else "mounted"
        out = [f"dsh: your MCP servers, {head}; files: {files}"]
        checks = {c.name: c for c in looked.checks}
        for server in looked.servers:
            check = checks.get(server.name)
            if check is None or not check.ok:
                why = check.error if check is not None else "not checked"
                out.append(f"  {server.name}: left out: {why}  [{server.target}]")
                continue
            asks = "every call asks" if not server.auto_approve else (
                "asks except " + ", ".join(server.auto_approve))  # fmt: skip
            count = f"{len(check.tools)} tool{'' if len(check.tools) == 1 else 's'}"
            out.append(f"  {server.name}: {count}, {asks}  [{server.target}]")
            out += [f"    mcp__{server.name}__{t}  {d}".rstrip() for t, d in check.tools]
        out += [f"  {p}" for p in looked.problems]
        if not fresh:
            out.append("  (a changed file applies at the next start: %dsh restart)")
        return out


def default_where(
    setting: Callable[[], str | None], cwd: Callable[[], str | None], home: Callable[[], Path]
) -> Callable[[], tuple[str | None, Path, Path]]:
    """``where`` for :class:`UserMcp` from the kernel's settings (the workspace: the ``cwd``
    setting, else the kernel's working directory)."""
    return lambda: (setting(), Path(cwd() or os.getcwd()), home())
