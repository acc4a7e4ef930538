"""The kernel's settings, each declared once: a field of :class:`KernelSettings` with its help.

Two faces come from that one declaration:

- :class:`KernelSettings`, the immutable snapshot the agent, the run planner and the commands
  read (no IPython needed to build one, so they are tested without a shell);
- :func:`setting_traits`, one configurable traitlet per field, which
  :class:`~dsh_notebook.kernel.entry.magics.DshMagics` declares so that ``%config DshMagics.x = …`` and
  ``c.DshMagics.x = …`` in ``ipython_config.py`` keep working. The trait's kind follows the
  field's type (``str``/``int``/``bool``, a ``Literal`` as an ``Enum`` of its values, ``| None``
  as ``allow_none``), its default and help are the field's. :func:`settings_of` reads the traits
  back into a snapshot.

``None`` means "fall back to the environment" (``DEEPSEEK_API_KEY``, ``DSH_HOME`` …).
"""

from __future__ import annotations

import types
from collections.abc import Callable
from dataclasses import MISSING, dataclass, field, fields
from typing import Any, Literal, Union, get_args, get_origin, get_type_hints

from traitlets import Bool, Enum, HasTraits, Int, List, TraitError, TraitType, Unicode

from ...runtime import Secret
from ...runtime.mask_policy import SECRET_ENV_NAMES, compile_patterns

__all__ = [
    "DemoChoice",
    "FormatChoice",
    "HeadlessAnswer",
    "KernelSettings",
    "Mode",
    "PermissionMode",
    "Rerun",
    "SecretUnicode",
    "setting_traits",
    "settings_of",
]

Mode = Literal["auto", "background", "wait"]
FormatChoice = Literal["auto", "widget", "markdown", "text"]
HeadlessAnswer = Literal["reject", "allow"]
Rerun = Literal["skip-answered", "always"]
DemoChoice = Literal["auto", "on", "off"]
PermissionMode = Literal["read-only", "workspace-write", "danger-full-access"]


def _about(
    help: str, *, secret: bool = False, check: Callable[[Any], object] | None = None
) -> dict[str, Any]:
    """A setting's metadata: its help (the trait's too), whether its value is a secret, and a
    check a value must pass when it is set (its ``ValueError`` becomes the trait's one-line
    error)."""
    return {"help": help, "secret": secret, "check": check}


@dataclass(frozen=True)
class KernelSettings:
    """The effective ``DshMagics`` settings (``None``: fall back to the environment)."""

    dsh_bin: str | None = field(
        default=None, metadata=_about("Runtime executable (default: resolved).")
    )
    dsh_home: str | None = field(
        default=None,
        metadata=_about("Harness home (default: $DSH_HOME or ~/.dsh; never a temp dir)."),
    )
    cwd: str | None = field(
        default=None, metadata=_about("Agent workspace (default: the notebook's directory).")
    )
    provider: str = field(default="deepseek-official", metadata=_about("Model provider."))
    model: str | None = field(
        default=None, metadata=_about("Model (default: $DSH_MODEL or deepseek-flash).")
    )
    reasoning_effort: str | None = field(default=None, metadata=_about("off, low, high or max."))
    max_tokens: int | None = field(default=None, metadata=_about("Output cap per model call."))
    permission_mode: PermissionMode | None = field(
        default=None,
        metadata=_about(
            "Sandbox and approval mode (default: $DSH_PERMISSION_MODE or workspace-write)."
        ),
    )
    base_url: str | None = field(
        default=None, metadata=_about("Model endpoint (default: $DEEPSEEK_BASE_URL).")
    )
    api_key: str | None = field(
        default=None,
        metadata=_about(
            "API key (default: $DEEPSEEK_API_KEY). Never echoed; prefer the environment or "
            "%dsh key, since cells are saved.",
            secret=True,
        ),
    )
    prewarm: bool | None = field(
        default=None,
        metadata=_about(
            "When to start the runtime ahead of the first prompt. None (default): in the "
            "background as soon as the dsh-notebook frontend extension answers (a live JupyterLab or "
            "Notebook 7 page), never under nbclient or in a terminal; True: at %load_ext, everywhere; "
            "False: only on the first prompt."
        ),
    )
    bridge: bool = field(
        default=True, metadata=_about("Load the bridge plugin (approvals, questions, live text).")
    )
    mode: Mode = field(default="auto", metadata=_about("Default execution mode."))
    default_format: FormatChoice = field(default="auto", metadata=_about("How runs are shown."))
    headless_approval: HeadlessAnswer = field(
        default="reject", metadata=_about("Answer to approvals when nobody can click or type.")
    )
    prices: str = field(
        default="",
        metadata=_about(
            "Your prices for the cost estimate, as JSON: {model: {input, cached_input, output, "
            "as_of}} in US dollars per million tokens, over the default table (DeepSeek's list "
            "price of 2025-09-05; see README)."
        ),
    )
    read_only: bool = field(
        default=False,
        metadata=_about(
            "Start every run read-only (as %%dsh --read-only): no tool may change the notebook, "
            "the kernel or files."
        ),
    )
    max_run_tokens: int | None = field(
        default=None,
        metadata=_about(
            "Default token budget of every run (as %%dsh --max-tokens N; a run's input, cached "
            "and output tokens, summed over its steps); None: no limit."
        ),
    )
    max_run_seconds: int | None = field(
        default=None,
        metadata=_about(
            "Default time budget of every run in seconds (as %%dsh --max-time S); None: no limit."
        ),
    )
    max_kernel_tokens: int | None = field(
        default=None,
        metadata=_about(
            "Token budget of this kernel, all runs together: the run that crosses it is stopped "
            "at its next step, and later prompts are a one-line error until you raise it or "
            "restart the kernel; None: no limit."
        ),
    )
    rerun: Rerun = field(
        default="skip-answered",
        metadata=_about(
            "Run All after a restart: skip prompts already answered in this session, or resend."
        ),
    )
    demo_model: DemoChoice = field(
        default="auto",
        metadata=_about(
            "Use the demo model (the rule-based demo analyst, on 127.0.0.1): 'auto' = when no API key "
            "and no base URL is configured."
        ),
    )
    notebook_tools: bool = field(
        default=True,
        metadata=_about(
            "Give the agent tools that see this kernel (variables, history, and run_python behind "
            "an approval) through an MCP server on 127.0.0.1. Read when the runtime starts."
        ),
    )
    notebook_run_python: bool = field(
        default=True,
        metadata=_about("Offer run_python to the agent (every call asks for your approval)."),
    )
    agent_cells: bool = field(
        default=True,
        metadata=_about(
            "Insert each approved run_python call as a code cell (tag dsh-agent) with its "
            "outputs below the %%dsh cell; needs the dsh-notebook JupyterLab/Notebook 7 extension."
        ),
    )
    undo_memory_mb: int = field(
        default=512,
        metadata=_about(
            'Memory the values kept for "Undo this run" may hold, all runs together (MB); '
            "the oldest runs' values are dropped first, and their undo says so."
        ),
    )
    undo_value_mb: int = field(
        default=256,
        metadata=_about(
            'Largest value kept for "Undo this run" (MB); a larger one is named on the card '
            "as not undoable before you click."
        ),
    )
    notebook_tools_max_chars: int = field(
        default=8000, metadata=_about("Cap for one notebook tool result.")
    )
    max_chars_per_value: int = field(
        default=4000, metadata=_about("Cap for one interpolated value.")
    )
    max_context_chars: int = field(
        default=40000, metadata=_about("Cap for all interpolated values of a prompt.")
    )
    context_block: bool = field(
        default=True,
        metadata=_about(
            "Send a notebook context block with every prompt (a second text block: notebook "
            "path, this cell, Python and data library versions, cells run since the previous "
            "prompt, the referenced values' names and types; at most 2,000 characters). "
            "`%%dsh --show-context` prints it without sending."
        ),
    )

    secret_env_names: tuple[str, ...] = field(
        default=SECRET_ENV_NAMES,
        metadata=_about(
            "Environment variables whose values are masked wherever the notebook shows or sends "
            "text (fnmatch patterns, case-insensitive; values under 8 characters are left alone)."
        ),
    )
    mask_patterns: tuple[str, ...] = field(
        default=(),
        metadata=_about(
            "Your own regular expressions: each match is masked like a secret "
            "(`[masked: mask_patterns[0]]`), beside the environment's and the credential shapes.",
            check=compile_patterns,
        ),
    )

    private: tuple[str, ...] = field(
        default=(),
        metadata=_about(
            "Variables kept from the model (name patterns, e.g. ['payroll*', '*_secret']): "
            "listed by name and type only, never described, refused in {name}, their values "
            "masked in every output."
        ),
    )

    mcp_servers: str | None = field(
        default=None,
        metadata=_about(
            'Your own MCP servers: a JSON file {"mcpServers": {name: {command, args, env} | '
            "{url, headers}}} (default: $DSH_HOME/mcp.json, then dsh-mcp.json in the "
            "workspace; '' turns them off). Read at each runtime start; every call of their "
            "tools asks you unless the entry lists it in autoApprove. `%dsh mcp` lists them."
        ),
    )

    def __repr__(self) -> str:  # the key never shows, not even in a traceback's locals
        return f"KernelSettings(model={self.model!r}, api_key={'<set>' if self.api_key else None})"


class SecretUnicode(Unicode):  # type: ignore[type-arg]
    """A string trait held as a :class:`~dsh_notebook.runtime.Secret`: ``%config DshMagics``,
    ``%config DshMagics.api_key`` and tracebacks show ``***``, never the value."""

    def validate(self, obj: Any, value: Any) -> Any:
        value = super().validate(obj, value)
        return Secret(value) if isinstance(value, str) and value else value


class _CheckedList(List):  # type: ignore[type-arg]
    """A list-of-strings trait whose value must pass its setting's check."""

    def __init__(self, check: Callable[[Any], object] | None, **kw: Any) -> None:
        super().__init__(Unicode(), **kw)
        self._check = check

    def validate(self, obj: Any, value: Any) -> Any:
        value = super().validate(obj, value)
        if self._check is not None:
            try:
                self._check(value)
            except ValueError as exc:
                raise TraitError(f"DshMagics.{self.name}: {exc}") from None
        return value


def _trait(
    kind: Any, default: Any, help: str, secret: bool, check: Callable[[Any], object] | None = None
) -> TraitType[Any, Any]:
    """The traitlet for a field of type ``kind`` (see the module docstring)."""
    optional = False
    if get_origin(kind) in (Union, types.UnionType):
        members = [a for a in get_args(kind) if a is not type(None)]
        optional = len(members) < len(get_args(kind))
        (kind,) = members
    # the trait classes' overloads want a literal allow_none; ``optional`` is computed
    constructors: dict[Any, Any] = {bool: Bool, int: Int, str: SecretUnicode if secret else Unicode}
    trait: TraitType[Any, Any]
    if get_origin(kind) is tuple:  # tuple[str, ...]: a list trait, read back as a tuple
        trait = _CheckedList(check, default_value=list(default), help=help)
    elif get_origin(kind) is Literal:
        enum: Any = Enum
        trait = enum(list(get_args(kind)), default, allow_none=optional, help=help)
    elif kind in constructors:
        trait = constructors[kind](default, allow_none=optional, help=help)
    else:  # pragma: no cover - a new field of another type must extend this mapping
        raise TypeError(f"no trait for a setting of type {kind!r}")
    return trait.tag(config=True)


def setting_traits() -> dict[str, TraitType[Any, Any]]:
    """One fresh configurable trait per :class:`KernelSettings` field, in declaration order."""
    hints = get_type_hints(KernelSettings)
    traits = {}
    for f in fields(KernelSettings):
        assert f.default is not MISSING
        about = f.metadata
        traits[f.name] = _trait(
            hints[f.name], f.default, about["help"], about["secret"], about["check"]
        )
    return traits


def settings_of(configurable: HasTraits) -> KernelSettings:
    """The snapshot of ``configurable``'s setting traits (declared from :func:`setting_traits`)."""
    values: dict[str, Any] = {}
    for f in fields(KernelSettings):
        value = getattr(configurable, f.name)
        values[f.name] = tuple(value) if isinstance(value, list) else value  # a list trait
    return KernelSettings(**values)
