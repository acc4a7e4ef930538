"""Package data: the in-runtime bridge plugin loaded with ``--patch`` (wire contract: README.md)."""

from pathlib import Path as _Path

#: Absolute path of ``notebook-bridge.patch.yml``; pass it as ``--patch <path>`` to ``dsh --profile sdk``.
BRIDGE_PATCH_PATH: _Path = _Path(__file__).resolve().parent / "notebook-bridge.patch.yml"

__all__ = ["BRIDGE_PATCH_PATH"]
