"""How much a saved notebook grows per settled ``%%dsh`` cell, against the transcripts' own text.

    python bench/notebook_growth.py [--cells 20] [--words 60]

A notebook of ``--cells`` prompt cells (the scripted demo model's ``long`` answer of ``--words``
words each, no key) is executed with nbclient in wait mode, as nbconvert and papermill do, and
saved. Printed: the file's size before and after, the growth per cell, and the transcripts' own
text per cell (the settled output's ``text/markdown``: what a person reads), with the ratio. A
settled cell keeps its transcript once, as markdown, beside a one-line ``text/plain`` (its
summary and where the transcript is) and the output's metadata; the rest of the growth is
nbformat's JSON (one string per line, indentation). In a live JupyterLab the widget output is
replaced by the same static bundle when the run settles, so a saved notebook holds the same.
"""

from __future__ import annotations

import argparse
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
    markdown = 0
    plain = 0
    for cell in nb.cells[1:]:
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            markdown += len(str(data.get("text/markdown", "")).encode())
            plain += len(str(data.get("text/plain", "")).encode())
    per_cell = (after - before) / args.cells
    text = markdown / args.cells
    print(f"cells: {args.cells}, answer of {args.words} words each (scripted demo model)")
    print(f"notebook: {before:,} B -> {after:,} B")
    print(f"growth per settled cell: {per_cell:,.0f} B")
    print(f"transcript text (text/markdown) per cell: {text:,.0f} B")
    print(f"text/plain beside it per cell: {plain / args.cells:,.0f} B")
    print(
        f"ratio growth / transcript text: {per_cell / text:.2f}x (the rest: text/plain, metadata, JSON)"
    )


if __name__ == "__main__":
    sys.exit(main())
