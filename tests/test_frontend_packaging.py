"""The wheel ships the prebuilt extension where Jupyter finds it, and the committed build is
complete (what its package.json loads exists). Freshness is checked by scripts/test.sh, which
rebuilds it."""

from __future__ import annotations

import json
import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
BUILD = REPO / "dsh_notebook" / "labextension"
TARGET = "share/jupyter/labextensions/dsh-notebook"
SERVER_CONFIG = "jupyter-config/jupyter_server_config.d/dsh_notebook.json"


def test_shared_data_maps_the_build_and_install_json() -> None:
    pyproject = (REPO / "pyproject.toml").read_text()
    section = pyproject.split("[tool.hatch.build.targets.wheel.shared-data]", 1)[1].split("\n[", 1)[
        0
    ]
    mapping = dict(re.findall(r'^"([^"]+)" = "([^"]+)"$', section, re.MULTILINE))
    assert mapping == {
        "dsh_notebook/labextension": TARGET,
        "js/labextension/install.json": f"{TARGET}/install.json",
        SERVER_CONFIG: f"etc/jupyter/{SERVER_CONFIG.split('/', 1)[1]}",
    }
    enabled = json.loads((REPO / SERVER_CONFIG).read_text())["ServerApp"]["jpserver_extensions"]
    assert enabled == {"dsh_notebook.server_extension": True}
    assert (REPO / "dsh_notebook" / "server_extension.py").is_file()
    assert "jupyter-config" in pyproject.split("[tool.hatch.build.targets.sdist]", 1)[1]
    install = json.loads((REPO / "js" / "labextension" / "install.json").read_text())
    assert install["packageManager"] == "python" and install["packageName"] == "dsh-notebook"
    sdist = pyproject.split("[tool.hatch.build.targets.sdist]", 1)[1].split("\n[", 1)[0]
    assert "js/labextension/install.json" in sdist  # a wheel built from the sdist needs it


def test_committed_build_is_complete() -> None:
    meta = json.loads((BUILD / "package.json").read_text())
    build = meta["jupyterlab"]["_build"]
    assert (BUILD / build["load"]).is_file()
    assert build["extension"] == "./extension" and build["style"] == "./style"
    for chunk in (BUILD / "static").glob("*.js"):
        text = chunk.read_text()
        assert str(REPO) not in text and "/home/" not in text, chunk  # no machine paths
