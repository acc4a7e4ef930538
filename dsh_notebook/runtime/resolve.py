"""Where the runtime is and where its home is: resolution rules, readable before any launch.

Binary (first non-empty wins): ``dsh_bin`` → ``$DSH_RUNTIME_BIN`` → the installed runtime wheel
(``deepseek-harness-runtime-bin``, import ``deepseek_harness_runtime``) → ``dsh`` on ``PATH`` →
:class:`~dsh_notebook.errors.RuntimeNotFound` naming these routes.

Home (first non-empty wins, blank counts as unset): ``dsh_home`` → ``DSH_HOME`` in the configured
``env`` → ``DSH_HOME`` in the parent environment → ``~/.dsh``. The result is absolute with ``~``
expanded. Resolution does not touch the disk; :func:`ensure_dsh_home` creates it.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Mapping
from pathlib import Path

from ..errors import ConfigError, RuntimeNotFound

__all__ = [
    "RUNTIME_WHEEL",
    "ensure_dsh_home",
    "resolve_dsh_bin",
    "resolve_dsh_home",
    "native_cache_env",
    "unwritable_home_message",
]

RUNTIME_WHEEL = "deepseek-harness-runtime-bin==0.2.1rc2"


def _non_empty(value: str | os.PathLike[str] | None) -> str | None:
    if value is None:
        return None
    text = os.fspath(value)
    return text if text.strip() else None


def _wheel_launch_args() -> list[str] | None:
    try:
        import deepseek_harness_runtime as wheel  # type: ignore[import-not-found,import-untyped,unused-ignore]
    except ImportError:
        return None
    try:
        args = wheel.resolve_bundled_launch_args()
    except (FileNotFoundError, ValueError, OSError):
        return None
    return [str(a) for a in args] if args else None


def resolve_dsh_bin(
    dsh_bin: str | os.PathLike[str] | list[str] | None = None,
    parent_env: Mapping[str, str] | None = None,
) -> list[str]:
    """The argv prefix that starts the runtime (an executable, possibly with leading arguments).

    ``dsh_bin`` may be a path or an argv prefix list (e.g. ``[sys.executable, "-m", "x"]``).
    """
    env = os.environ if parent_env is None else parent_env
    if isinstance(dsh_bin, list):
        if dsh_bin and all(isinstance(a, str) and a for a in dsh_bin):
            return list(dsh_bin)
        if dsh_bin:
            raise ConfigError("dsh_bin as a list must hold non-empty strings")
    else:
        explicit = _non_empty(dsh_bin)
        if explicit is not None:
            return [str(Path(explicit).expanduser())]
    from_env = _non_empty(env.get("DSH_RUNTIME_BIN"))
    if from_env is not None:
        return [str(Path(from_env).expanduser())]
    wheel = _wheel_launch_args()
    if wheel is not None:
        return wheel
    on_path = shutil.which("dsh", path=env.get("PATH"))
    if on_path is not None:
        return [on_path]
    raise RuntimeNotFound(
        "no DeepSeek Harness runtime found. Tried: the dsh_bin setting, $DSH_RUNTIME_BIN, the "
        f"runtime wheel (pip install '{RUNTIME_WHEEL}') and `dsh` on PATH. Install the wheel "
        "(or `pip install dsh-notebook[runtime]`), or point DSH_RUNTIME_BIN at a dsh executable."
    )


def resolve_dsh_home(
    dsh_home: str | os.PathLike[str] | None = None,
    config_env: Mapping[str, str] | None = None,
    parent_env: Mapping[str, str] | None = None,
) -> Path:
    """The absolute harness home a launch with these settings would use. Pure: creates nothing."""
    parent = os.environ if parent_env is None else parent_env
    chosen = (
        _non_empty(dsh_home)
        or _non_empty((config_env or {}).get("DSH_HOME"))
        or _non_empty(parent.get("DSH_HOME"))
    )
    if chosen is None:
        home = parent.get("HOME") or str(Path.home())
        return Path(home, ".dsh").resolve()
    if chosen == "~" or chosen.startswith("~/"):
        expanded = (parent.get("HOME") or str(Path.home())) + chosen[1:]
    else:
        expanded = os.path.expanduser(chosen)
    return Path(expanded).resolve()


def ensure_dsh_home(path: Path) -> Path:
    """Create the home (and parents) when absent and check that it can be written; return it.

    Raises :class:`~dsh_notebook.errors.ConfigError` whose message says to configure
    ``DSH_HOME`` when the folder cannot be created or written (a kernel host whose ``HOME`` is
    read-only or missing, e.g. a container user without a home).
    """
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ConfigError(unwritable_home_message(path, exc.strerror or str(exc))) from exc
    if not os.access(path, os.W_OK | os.X_OK):
        raise ConfigError(unwritable_home_message(path, "permission denied"))
    return path


def unwritable_home_message(path: Path, reason: str) -> str:
    """What to do when the harness home cannot be written (one paragraph, no secrets)."""
    return (
        f"DSH_HOME {str(path)!r} cannot be written ({reason}). The runtime keeps its sessions, "
        "profiles and locks there, by default in ~/.dsh, and this kernel host has no writable "
        "HOME. Set DSH_HOME to a writable folder that persists, in the kernel's environment "
        "(the kernelspec's env, the hub spawner's environment, the gateway's forwarded env) or "
        "with %config DshMagics.dsh_home = '/path', then run the cell again."
    )


def native_cache_env(parent_env: Mapping[str, str], dsh_home: Path) -> dict[str, str]:
    """``PKG_NATIVE_CACHE_PATH`` for the child when the runtime could not use its default.

    The runtime executable (a packed Node program) extracts its native addons under
    ``$HOME/.cache/pkg`` on start, or under ``$PKG_NATIVE_CACHE_PATH`` when set; on a host
    without a writable ``HOME`` every run then fails with ``ENOTDIR``/``EACCES`` on that
    ``mkdir``. When the parent sets no such path and ``$HOME/.cache`` cannot be written, the
    cache goes to ``<DSH_HOME>/cache``; otherwise nothing is changed (``{}``). May create
    ``$HOME/.cache`` (which the runtime would create anyway).
    """
    if _non_empty(parent_env.get("PKG_NATIVE_CACHE_PATH")):
        return {}
    home = parent_env.get("HOME") or str(Path.home())
    cache = Path(home, ".cache")
    try:
        cache.mkdir(parents=True, exist_ok=True)
        if os.access(cache, os.W_OK | os.X_OK):
            return {}
    except OSError:
        pass
    return {"PKG_NATIVE_CACHE_PATH": str(dsh_home / "cache")}
