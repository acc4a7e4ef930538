"""Bytes of a run widget's ``comm_open``: the self-contained widget against the light one.

    python bench/widget_bytes.py [--widgets 3]

Every ``%%dsh`` widget opens its comm with its whole state, ``_esm`` and ``_css`` included.
Without the frontend extension (VS Code, Colab, nbconvert, a page whose extension serves another
bundle) that is the whole script bundle, for every widget; on a page whose ``dsh-notebook``
extension announced ``widget_bundle:<hash>`` for this very bundle, the kernel sends a small
loader instead and the page fetches the bundle once from the extension's static folder
(:mod:`dsh_notebook.widget.bundle`). Prints the compact-JSON size of each widget's
``comm_open`` data for both, and the ratio. (On the wire the Jupyter message header and the
websocket frame add ~1 KB: ``tests/browser/test_widget_bundle_browser.py`` measures the frames
in JupyterLab.)
"""

from __future__ import annotations

import argparse

import comm

from dsh_notebook.testing.comms import RecordingComm
from dsh_notebook.transcript import Transcript
from dsh_notebook.widget import RunWidget
from dsh_notebook.widget.bundle import HASH


def opened(light: bool) -> int:
    widget = RunWidget(Transcript("bench", prompt="tell me something").snapshot(), light=light)
    try:
        c = widget.comm
        assert isinstance(c, RecordingComm)
        return c.open_bytes
    finally:
        widget.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--widgets", type=int, default=3)
    args = parser.parse_args()
    comm.create_comm = lambda *a, **k: RecordingComm(*a, **k)
    print(f"widget bundle {HASH}: comm_open bytes per widget, {args.widgets} widgets on a page")
    full = [opened(False) for _ in range(args.widgets)]
    light = [opened(True) for _ in range(args.widgets)]
    for i, (f, li) in enumerate(zip(full, light, strict=True), 1):
        print(f"widget {i}: self-contained {f} B, light {li} B ({f / li:.0f}x smaller)")
    print(f"total for {args.widgets} widgets: {sum(full)} B -> {sum(light)} B "
          "(+ the bundle fetched once by the page over HTTP, cached by the browser)")  # fmt: skip


if __name__ == "__main__":
    main()
