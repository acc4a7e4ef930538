"""How much a saved notebook grows per settled ``%%dsh`` cell, against the transcripts' own text.

    python bench/notebook_growth.py [--cells 20] [--words 60]

A notebook of ``--cells`` prompt cells (the scripted demo model's ``long`` answer of ``--words``
words each, no key) is executed with nbclient in wait mode, as nbconvert and papermill do, and
saved. Printed: the file's size before and after, the growth per cell, and the transcripts' own
text per cell (the settled output's ``text/plain``: what a person reads), with the ratio. A
settled cell stores its transcript twice on purpose (``text/markdown`` for JupyterLab, VS Code
and GitHub; ``text/plain`` for terminals, ``nbconvert --to script`` and text-only viewers), plus
the output's metadata; in a live JupyterLab the widget output is replaced by the same static
bundle when the run settles, so a saved notebook holds the same.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile


def _notebook(cells: int, words: int) -> dict[str, object]:
    import nbformat

    nb = nbformat.v4.new_notebook()
    nb.cells.append(
        nbformat.v4.new_code_cell('%load_ext dsh_notebook\n%config DshMagics.mode = "wait"')
    )
    for i in range(cells):
        nb.cells.append(
            nbformat.v4.new_code_cell(f"%%dsh\n[[scenario:long]] [[chunks:{words}]] question {i}")
        )
    return dict(nb)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cells", type=int, default=20)
    parser.add_argument("--words", type=int, default=60)
    args = parser.parse_args()

    import nbformat
    from nbclient import NotebookClient

    with tempfile.TemporaryDirectory(prefix="dsh-growth-") as home:
        for name in ("DEEPSEEK_API_KEY", "DEEPSEEK_BASE_URL"):
            os.environ.pop(name, None)
        os.environ.update(DSH_HOME=home, DSH_TELEMETRY_MODE="DISABLED")
        nb = nbformat.from_dict(_notebook(args.cells, args.words))
        before = len(nbformat.writes(nb).encode())
        NotebookClient(nb, timeout=300, kernel_name="python3", record_timing=False).execute(
            cwd=home
        )
        after = len(nbformat.writes(nb).encode())
    plain = 0
    rich = 0
    for cell in nb.cells[1:]:
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            plain += len(str(data.get("text/plain", "")).encode())
            rich += len(json.dumps(output).encode())
    per_cell = (after - before) / args.cells
    text = plain / args.cells
    print(f"cells: {args.cells}, answer of {args.words} words each (scripted demo model)")
    print(f"notebook: {before:,} B -> {after:,} B")
    print(f"growth per settled cell: {per_cell:,.0f} B")
    print(f"transcript text/plain per cell: {text:,.0f} B")
    print(
        f"ratio growth / transcript text: {per_cell / text:.2f}x (text/markdown + text/plain + metadata)"
    )
    print(f"outputs' JSON per cell: {rich / args.cells:,.0f} B")


if __name__ == "__main__":
    sys.exit(main())
