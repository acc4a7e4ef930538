"""Write ``notebooks/fix-with-dsh.ipynb`` from one real run: JupyterLab on 127.0.0.1 with this
checkout's extension, Debian's chromium, the real runtime and the demo analyst (no key). The
run is played as a person would (``tests/browser/fix_notebook.py``: the typo'd cell raises, Fix
with dsh, Apply, Allow the run, Undo this run, save); the saved notebook is shipped as saved,
without its own identity. ``tests/browser/test_fix_notebook.py`` plays it again and compares.

    .venv/bin/python scripts/fix_with_dsh_notebook.py
"""

from __future__ import annotations

import json
import shutil
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.browser.conftest import CHROMIUM, CHROMIUM_ARGS  # noqa: E402
from tests.browser.fix_notebook import play, shipped, write_cells  # noqa: E402
from tests.browser.labpage import lab_with_extension  # noqa: E402

TARGET = REPO / "notebooks" / "fix-with-dsh.ipynb"


def main() -> None:
    from playwright.sync_api import sync_playwright

    root = Path(tempfile.mkdtemp(prefix="dsh-fix-notebook-"))
    write_cells(root / "fix-with-dsh.ipynb")
    try:
        with lab_with_extension(root) as lab, sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
            try:
                saved = play(browser, lab, "fix-with-dsh.ipynb")
            finally:
                browser.close()
        TARGET.write_text(json.dumps(shipped(saved), indent=1, ensure_ascii=False) + "\n")
        print("wrote", TARGET)
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
