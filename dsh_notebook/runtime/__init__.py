"""Finding and launching the runtime. Imports the standard library and anyio only."""

from typing import TYPE_CHECKING

from ..lazy import install as install_lazy_exports

if TYPE_CHECKING:  # what mypy sees; at run time each name is imported on first use
    from .environment import (
        INHERITED_NAMES,
        INHERITED_PREFIXES,
        REMOVED_NAMES,
        compose_environment,
        describe_environment,
        is_secret_name,
    )
    from .mask_policy import Masking
    from .process import LaunchSpec, RuntimeProcess, StderrTail, argv_for
    from .resolve import (
        RUNTIME_WHEEL,
        ensure_dsh_home,
        native_cache_env,
        resolve_dsh_bin,
        resolve_dsh_home,
        unwritable_home_message,
    )
    from .sandbox import sandbox_problem
    from .secret import Secret, redact

_SUBMODULE = install_lazy_exports(
    globals(),
    environment=(
        "INHERITED_NAMES", "INHERITED_PREFIXES", "REMOVED_NAMES", "compose_environment",
        "describe_environment", "is_secret_name"
    ),
    process=("LaunchSpec", "RuntimeProcess", "StderrTail", "argv_for"),
    resolve=(
        "RUNTIME_WHEEL", "ensure_dsh_home", "native_cache_env", "resolve_dsh_bin",
        "resolve_dsh_home", "unwritable_home_message"
    ),
    sandbox=("sandbox_problem",),
    mask_policy=("Masking",),
    secret=("Secret", "redact"),
)  # fmt: skip


__all__ = [
    "INHERITED_NAMES",
    "INHERITED_PREFIXES",
    "REMOVED_NAMES",
    "RUNTIME_WHEEL",
    "LaunchSpec",
    "Masking",
    "RuntimeProcess",
    "Secret",
    "StderrTail",
    "argv_for",
    "compose_environment",
    "describe_environment",
    "ensure_dsh_home",
    "is_secret_name",
    "native_cache_env",
    "redact",
    "resolve_dsh_bin",
    "resolve_dsh_home",
    "sandbox_problem",
    "unwritable_home_message",
]
