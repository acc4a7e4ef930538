"""``python -m dsh_notebook.testing.fake_runtime`` or ``python <this package's directory>``."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

if __package__:
    from .cli import main
else:
    # Launched by path: import the siblings as the top-level package ``fake_runtime`` (its parent
    # directory goes on sys.path instead of this one), so dsh_notebook itself is never imported.
    here = Path(__file__).resolve().parent
    sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != here]
    sys.path.insert(0, str(here.parent))
    main = importlib.import_module(f"{here.name}.cli").main

if __name__ == "__main__":
    sys.exit(main())
