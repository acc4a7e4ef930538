"""The environment the runtime child gets: an allow-list of the parent's, plus the configuration.

By default the runtime does **not** inherit the whole parent environment (a kernel's environment
holds tokens for unrelated services). It gets:

1. from the parent, only :data:`INHERITED_NAMES` and names starting with :data:`INHERITED_PREFIXES`
   (``DSH_*``, ``DEEPSEEK_*``, ``LC_*``, ``XDG_*``) except the removed 0.1-era names in
   :data:`REMOVED_NAMES` (no reader upstream; the seed SDK never writes them); or everything when
   ``inherit_env=True`` (the seed SDKs' behaviour, wholesale, nothing stripped);
2. ``DEEPSEEK_BASE_URL`` / ``DEEPSEEK_API_KEY`` / ``DSH_PERMISSION_MODE`` from ``base_url`` /
   ``api_key`` / ``permission_mode`` when those are set;
3. the configured ``env`` mapping, which wins on collision;
4. ``DSH_HOME`` = the resolved home, always.

Values of the result are secrets in general: never log it. Values of secret-looking names
(:func:`is_secret_name`, e.g. ``DEEPSEEK_API_KEY``) are :class:`~dsh_notebook.runtime.secret.Secret`
instances, so even a ``repr`` of the mapping is masked; :func:`describe_environment` gives a
printable summary with secret-looking values masked.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

from .secret import Secret

__all__ = [
    "INHERITED_NAMES",
    "INHERITED_PREFIXES",
    "REMOVED_NAMES",
    "compose_environment",
    "describe_environment",
    "is_secret_name",
]

INHERITED_NAMES: frozenset[str] = frozenset(
    {
        "PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "LANGUAGE", "TZ", "TERM",
        "TMPDIR", "TEMP", "TMP",
        "http_proxy", "https_proxy", "no_proxy", "all_proxy",
        "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "ALL_PROXY",
        "SSL_CERT_FILE", "SSL_CERT_DIR", "NODE_EXTRA_CA_CERTS",
        "PKG_NATIVE_CACHE_PATH",  # where the packed runtime extracts its native addons
        # Windows essentials
        "SYSTEMROOT", "SystemRoot", "WINDIR", "COMSPEC", "PATHEXT", "APPDATA", "LOCALAPPDATA",
        "USERPROFILE", "PROGRAMDATA", "PROGRAMFILES",
    }
)  # fmt: skip
INHERITED_PREFIXES: tuple[str, ...] = ("DSH_", "DEEPSEEK_", "LC_", "XDG_")
REMOVED_NAMES: frozenset[str] = frozenset({"DSH_CORDIS_CONFIG", "DSH_SESSION_ROOT", "DSH_CWD"})
"""0.1-era variables (removed surface: the profile tree, ``dsh_home`` and ``initialize.cwd``
replace them) that the allow-list does not pass on although they start with ``DSH_``."""

_SECRET = re.compile(r"(?i)(KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH)")


def is_secret_name(name: str) -> bool:
    """True for names that look like they hold a credential (``KEY``, ``TOKEN``, ``SECRET`` …)."""
    return bool(_SECRET.search(name))


def compose_environment(
    parent_env: Mapping[str, str],
    *,
    dsh_home: Path,
    inherit_env: bool = False,
    base_url: str | None = None,
    api_key: str | None = None,
    permission_mode: str | None = None,
    env: Mapping[str, str] | None = None,
) -> dict[str, str]:
    """The child environment, composed by the rules in the module docstring."""
    if inherit_env:
        result = dict(parent_env)
    else:
        result = {
            name: value
            for name, value in parent_env.items()
            if name in INHERITED_NAMES
            or (name.startswith(INHERITED_PREFIXES) and name not in REMOVED_NAMES)
        }
    if base_url:
        result["DEEPSEEK_BASE_URL"] = base_url
    if api_key:
        result["DEEPSEEK_API_KEY"] = api_key
    if permission_mode:
        result["DSH_PERMISSION_MODE"] = permission_mode
    if env:
        result.update(env)
    result["DSH_HOME"] = str(dsh_home)
    for name, value in result.items():
        if is_secret_name(name) and not isinstance(value, Secret):
            result[name] = Secret(value)
    return result


def describe_environment(env: Mapping[str, str]) -> dict[str, str]:
    """A copy safe to print: values of secret-looking names replaced by ``<set>``."""
    return {k: ("<set>" if is_secret_name(k) and v else v) for k, v in sorted(env.items())}
