"""``HarnessConfig``: every launch and client option, validated before anything is spawned.

The API key is a secret: it is held as a :class:`~dsh_notebook.runtime.Secret` (``repr``/``str``
masked), excluded from ``repr`` and from :meth:`HarnessConfig.describe`; ``env`` values whose names
look secret are held and masked the same way.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from ..errors import ConfigError
from ..runtime import (
    LaunchSpec,
    Secret,
    argv_for,
    compose_environment,
    describe_environment,
    ensure_dsh_home,
    is_secret_name,
    native_cache_env,
    resolve_dsh_bin,
    resolve_dsh_home,
)
from ..transport import DEFAULT_MAX_LINE_BYTES

__all__ = [
    "DEFAULT_MODEL",
    "DEFAULT_PROVIDER",
    "IMAGE_INPUT_MODELS",
    "PERMISSION_MODES",
    "HarnessConfig",
    "takes_images",
]

DEFAULT_PROVIDER = "deepseek-official"
DEFAULT_MODEL = "deepseek-flash"
PERMISSION_MODES = ("read-only", "workspace-write", "danger-full-access")
REASONING_EFFORTS_HINT = ("off", "low", "high", "max")

IMAGE_INPUT_MODELS: Mapping[str, frozenset[str]] = {DEFAULT_PROVIDER: frozenset({"deepseek-flash"})}
"""Model routes known to take image input, by provider: the runtime's model catalog
(``DEFAULT_MODELS`` of runtime 0.2.1: ``deepseek-flash`` declares ``inputModalities ["text",
"image"]``; ``deepseek-v4-pro`` declares none). The runtime does not tell a client (its
``initialize`` returns no capabilities), so this table is the client's only source."""


def takes_images(provider: str, model: str) -> bool:
    """Whether images sent to ``model`` reach it as images. ``False`` for a model the catalog
    does not list as taking them: the runtime then replaces each image by an "[image unavailable
    …]" line, so an unknown route is treated as text-only (its images would not arrive)."""
    return model in IMAGE_INPUT_MODELS.get(provider, frozenset())


def _bridge_patch() -> Path | None:
    try:
        from ..bridge import BRIDGE_PATCH_PATH
    except ImportError:
        return None
    path = Path(BRIDGE_PATCH_PATH)
    return path if path.is_file() else None


@dataclass(frozen=True)
class HarnessConfig:
    """How to launch the runtime and talk to it.

    Timeouts are seconds; ``None`` means unbounded. ``request_timeout`` bounds every request but
    ``initialize`` (``initialize_timeout``) and ``session/wait`` (an activity interval, bounded by
    ``Session.run(timeout=…)`` instead).
    """

    dsh_bin: str | os.PathLike[str] | list[str] | None = None
    profile: str = "sdk"
    patches: Sequence[str | os.PathLike[str]] = ()
    dsh_home: str | os.PathLike[str] | None = None
    cwd: str | os.PathLike[str] | None = None
    runtime_cwd: str | os.PathLike[str] | None = None
    env: Mapping[str, str] = field(default_factory=dict)
    inherit_env: bool = False
    provider: str = DEFAULT_PROVIDER
    model: str = DEFAULT_MODEL
    reasoning_effort: str | None = None
    max_tokens: int | None = None
    base_url: str | None = None
    api_key: str | None = field(default=None, repr=False)
    permission_mode: str | None = None
    initialize_timeout: float | None = 30.0
    request_timeout: float | None = None
    shutdown_timeout: float = 1.0
    close_grace: float = 2.0
    approval_timeout: float | None = None
    question_timeout: float | None = None
    subscription_buffer: int = 100_000
    bridge: bool = True
    max_line_bytes: int = DEFAULT_MAX_LINE_BYTES

    def __post_init__(self) -> None:
        # The key (and secret-looking env values) are held as ``Secret``: masked in repr/str/format
        # wherever they travel, including a traceback's locals; the child receives the real value.
        if self.api_key is not None and not isinstance(self.api_key, Secret):
            object.__setattr__(self, "api_key", Secret(self.api_key))
        if any(is_secret_name(k) and not isinstance(v, Secret) for k, v in self.env.items()):
            object.__setattr__(
                self,
                "env",
                {k: Secret(v) if is_secret_name(k) else v for k, v in self.env.items()},
            )
        if not isinstance(self.profile, str) or not self.profile.strip():
            raise ConfigError("profile must be a non-empty name (default: 'sdk')")
        if self.permission_mode is not None and self.permission_mode not in PERMISSION_MODES:
            raise ConfigError(
                f"permission_mode {self.permission_mode!r} is not one of {', '.join(PERMISSION_MODES)}"
            )
        if self.max_tokens is not None and (
            isinstance(self.max_tokens, bool)
            or not isinstance(self.max_tokens, int)
            or not 0 < self.max_tokens <= 2**53 - 1
        ):
            raise ConfigError("max_tokens must be a positive integer")
        if self.reasoning_effort is not None and not isinstance(self.reasoning_effort, str):
            raise ConfigError(f"reasoning_effort must be a string such as {REASONING_EFFORTS_HINT}")
        if not self.provider or not self.model:
            raise ConfigError("provider and model must be non-empty")
        if self.subscription_buffer < 1:
            raise ConfigError("subscription_buffer must be at least 1")
        if self.max_line_bytes < 1024:
            raise ConfigError("max_line_bytes must be at least 1024 (default 64 MiB)")
        for name in (
            "initialize_timeout",
            "request_timeout",
            "approval_timeout",
            "question_timeout",
        ):
            value = getattr(self, name)
            if value is not None and value <= 0:
                raise ConfigError(f"{name} must be positive (or None for no bound)")
        if self.base_url is not None and not self.base_url.startswith(("http://", "https://")):
            raise ConfigError("base_url must be an http(s) URL without credentials")

    @classmethod
    def from_fields(cls, config: HarnessConfig | None = None, **overrides: Any) -> HarnessConfig:
        """``config`` with ``overrides`` applied; unknown names raise :class:`ConfigError`."""
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(overrides) - known)
        if unknown:
            raise ConfigError(
                f"unknown option(s) {', '.join(unknown)}; known: {', '.join(sorted(known))}"
            )
        base = config if config is not None else cls()
        return replace(base, **overrides) if overrides else base

    # -- resolution (pure, readable before launch) --------------------------------------------

    @property
    def effective_reasoning_effort(self) -> str | None:
        """Sent on ``initialize`` only when a non-blank string."""
        effort = self.reasoning_effort
        return effort if effort and effort.strip() else None

    def resolve_cwd(self) -> Path:
        return Path(self.cwd if self.cwd is not None else os.getcwd()).expanduser().resolve()

    def resolve_runtime_cwd(self) -> Path:
        if self.runtime_cwd is None:
            return self.resolve_cwd()
        return Path(self.runtime_cwd).expanduser().resolve()

    def resolve_dsh_home(self, parent_env: Mapping[str, str] | None = None) -> Path:
        return resolve_dsh_home(self.dsh_home, self.env, parent_env)

    def resolve_patches(self) -> list[Path]:
        patches = [Path(p).expanduser().resolve() for p in self.patches]
        if self.bridge:
            bridge = _bridge_patch()
            if bridge is not None:
                patches.insert(0, bridge)
        return patches

    def launch_spec(self, parent_env: Mapping[str, str] | None = None) -> LaunchSpec:
        """Resolve binary, home, argv and environment. Creates the home; spawns nothing."""
        parent = dict(os.environ if parent_env is None else parent_env)
        prefix = resolve_dsh_bin(self.dsh_bin, parent)
        home = ensure_dsh_home(self.resolve_dsh_home(parent))
        cwd = self.resolve_runtime_cwd()
        if not cwd.is_dir():
            raise ConfigError(f"runtime working directory {str(cwd)!r} does not exist")
        env = compose_environment(
            parent,
            dsh_home=home,
            inherit_env=self.inherit_env,
            base_url=self.base_url,
            api_key=self.api_key,
            permission_mode=self.permission_mode,
            env={**native_cache_env(parent, home), **self.env},
        )
        return LaunchSpec(
            argv=argv_for(prefix, self.profile, self.resolve_patches()),
            cwd=cwd,
            dsh_home=home,
            env=env,
        )

    def describe(self) -> dict[str, Any]:
        """The settings as a printable dict: the key shows as ``<set>``, secret env values masked."""
        out: dict[str, Any] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name == "api_key":
                if value:
                    value = "<set>"
                elif os.environ.get("DEEPSEEK_API_KEY"):
                    value = "<set> (DEEPSEEK_API_KEY)"  # read by the launch from the environment
            elif f.name == "env":
                value = describe_environment(value)
            out[f.name] = value
        return out

    def __repr__(self) -> str:
        shown = ", ".join(f"{k}={v!r}" for k, v in self.describe().items())
        return f"HarnessConfig({shown})"
