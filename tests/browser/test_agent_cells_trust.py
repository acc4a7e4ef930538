"""Issue 29, item 9: inserting agent cells does not make a trusted notebook untrusted.

JupyterLab trusts the outputs a cell produced in this session and the server signs a notebook on
save only when every code cell with rich output is trusted. An agent cell arrives with the
outputs the kernel produced for the approved call (text and images, never agent HTML): were it
inserted untrusted, the save would not be signed and the whole notebook would reopen "Not
Trusted". Real JupyterLab, kernel, runtime and scripted model; the server's contents API reports
the signature check per cell (``metadata.trusted``).
"""

from __future__ import annotations

from typing import Any

import pytest

from dsh_notebook.scripted_model import ScriptedModelServer

from .conftest import write_notebook
from .test_agent_cells import (  # noqa: F401 - the fixture
    AGENT_HEAD,
    PROMPT,
    click_decision,
    model,
    new_page,
    open_notebook,
    run_cell,
    save,
    setup_cell,
    wait_agent_cells,
)
from .test_labextension import lab_with_extension

pytestmark = [pytest.mark.browser, pytest.mark.timeout(420)]


def test_a_notebook_with_agent_cells_is_saved_trusted(
    browser: Any,
    tmp_path_factory: pytest.TempPathFactory,
    model: ScriptedModelServer,  # noqa: F811
) -> None:
    name = "trusted.ipynb"
    with lab_with_extension(tmp_path_factory.mktemp("agent-trust")) as lab:
        write_notebook(lab.root / name, [setup_cell(model), PROMPT])
        page = new_page(browser)
        open_notebook(page, lab, name, "lab")
        run_cell(page, lab, name, 0)
        run_cell(page, lab, name, 1)
        click_decision(page, ".dsh-allow")
        wait_agent_cells(page, 1)
        click_decision(page, ".dsh-allow")
        wait_agent_cells(page, 2)
        page.locator(".jp-RenderedMarkdown:has-text('are in your kernel')").first.wait_for(
            timeout=90_000
        )
        content = save(page, lab, name)
        agent = [c for c in content["cells"] if AGENT_HEAD in "".join(c["source"])]
        rich = [o for c in agent for o in c["outputs"] if o["output_type"] != "stream"]
        assert rich, agent  # the case in question: outputs the signature check looks at
        code = [c for c in content["cells"] if c["cell_type"] == "code"]
        assert all(c["metadata"].get("trusted") is True for c in code), [
            ("".join(c["source"])[:40], c["metadata"].get("trusted")) for c in code
        ]
        page.close()
