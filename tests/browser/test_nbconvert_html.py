"""Issue 29: a saved transcript in nbconvert HTML (lab and classic templates) reads as the notebook
does: code, tool results and the prompt in a monospace font, table columns aligned. Measured by
computed style in chromium on the HTML a real ``jupyter nbconvert --to html`` wrote."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import nbformat
import pytest

from dsh_notebook.protocol import Notification
from dsh_notebook.transcript import Transcript
from dsh_notebook.transcript.facts import Settled

pytestmark = pytest.mark.browser

MONOSPACE = ("monospace", "menlo", "consolas", "dejavu sans mono", "courier")


def transcript_markdown() -> str:
    t = Transcript("s", prompt="Which region grows fastest?")

    def event(etype: str, data: dict[str, Any]) -> None:
        t.apply(Notification("session.event", {"sessionId": "s", "event": {
            "type": etype, "seq": 0, "time": 0, "data": data}}))  # fmt: skip

    code = "import numpy as np\nrevenue.apply(lambda s: np.polyfit(range(len(s)), s, 1)[0])"
    event("tool/call", {"callId": "c1", "name": "mcp__notebook__run_python",
                        "arguments": f'{{"code": {code!r}}}'.replace("'", '"')})  # fmt: skip
    event("tool/result", {"message": {"toolCallId": "c1", "content": [
        {"type": "text", "text": "region\nSouth    102.46\nNorth     20.57\nEast     -39.43"}]}})  # fmt: skip
    answer = "| region | trend |\n| --- | ---: |\n| South | +102.46 |\n| East | -39.43 |"
    event("assistant/message", {"turn": 1, "step": 1, "message": {
        "role": "assistant", "content": [{"type": "text", "text": answer}]}})  # fmt: skip
    t.apply_local(Settled("completed"))
    return t.to_markdown()


def export(tmp_path: Path, template: str) -> Path:
    nb = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell("%%dsh\nWhich region grows fastest?")
    cell.outputs = [nbformat.v4.new_output(
        "display_data", data={"text/markdown": transcript_markdown(), "text/plain": "dsh"})]  # fmt: skip
    nb.cells = [cell]
    source = tmp_path / f"t-{template}.ipynb"
    nbformat.write(nb, source)
    subprocess.run(
        [sys.executable, "-m", "jupyter", "nbconvert", "--to", "html", "--template", template,
         str(source)],
        check=True, capture_output=True, timeout=120,
    )  # fmt: skip
    return source.with_suffix(".html")


@pytest.mark.parametrize("template", ["lab", "classic"])
def test_transcript_code_and_results_are_monospace_and_tables_align(
    browser: Any, tmp_path: Path, template: str
) -> None:
    html = export(tmp_path, template)
    page = browser.new_page()
    try:
        page.goto(html.as_uri())
        output = "[data-mime-type='text/markdown']" if template == "lab" else ".output_markdown"
        fonts = page.eval_on_selector_all(
            f"{output} pre", "els => els.map(e => getComputedStyle(e).fontFamily.toLowerCase())"
        )
        assert len(fonts) >= 3, fonts  # the prompt, the code, the result
        for font in fonts:
            assert any(m in font for m in MONOSPACE), (template, font)
        cells = page.eval_on_selector_all(
            f"{output} table td:last-child",
            "els => els.map(e => [getComputedStyle(e).textAlign, e.getBoundingClientRect().right])",
        )
        assert len(cells) == 2 and {c[0] for c in cells} == {"right"}, cells
        assert abs(cells[0][1] - cells[1][1]) < 1, cells  # one column edge
    finally:
        page.close()
