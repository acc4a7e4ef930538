"""``%load_ext dsh_notebook`` / ``%unload_ext dsh_notebook``.

Loading registers the magics, the ``post_run_cell`` hook (for ``{Err[n]}``) and the
``pre_run_cell``/``post_run_cell`` hooks that keep the agent's ``run_python`` out of running
cells, and starts the runtime in the background ahead of the first prompt: at once when
``DshMagics.prewarm = True``; by default (``None``) once the loading cell has finished (its
``post_run_cell`` on the main thread, never a comm callback's ``post_execute``), where a person
is at the keyboard
(the request allows stdin: JupyterLab, Notebook 7, VS Code, Colab; never under nbclient,
nbconvert, papermill or in a terminal); never with ``False``. Loading itself imports only the
magic's declarations (not the runtime client, the protocol models, the transcript nor anyio: the
agent is built on first use or by the prewarm's own thread), opens a comm and prints nothing. Unloading — and interpreter exit,
through ``atexit`` — fails pending approvals closed and runs the runtime's close ladder: no
runtime process outlives the kernel. Unloading drops every reference the shell holds to the
instance and leaves no thread, so load/unload cycles do not accumulate hosts or threads.
"""

from __future__ import annotations

from typing import Any

from .magics import DshMagics

__all__ = ["load_ipython_extension", "unload_ipython_extension"]

_ATTR = "_dsh_notebook_magics"


def load_ipython_extension(ip: Any) -> None:
    if getattr(ip, _ATTR, None) is not None:
        return
    magics = DshMagics(shell=ip, config=ip.config)  # ipython_config.py and earlier %config apply
    ip.register_magics(magics)
    if not any(c is magics for c in ip.configurables):  # IPython's Magics appends it itself
        ip.configurables.append(magics)  # so that %config DshMagics.x = … reaches this instance
    ip.events.register("post_run_cell", magics.post_run_cell)
    # a cell's run, not pre/post_execute: those also wrap every comm message's callback (the
    # comm package does), on whatever thread handles it (a subshell's), so a click would read
    # as "a cell holds the kernel" and a subshell's callback would end a running cell's flag
    ip.events.register("pre_run_cell", magics.cell_started)
    ip.events.register("post_run_cell", magics.cell_finished)
    setattr(ip, _ATTR, magics)
    prewarm = magics.settings().prewarm
    if prewarm:
        magics.prewarm_now()
    elif prewarm is None:
        magics.prewarm_when_frontend_answers()


def unload_ipython_extension(ip: Any) -> None:
    magics: DshMagics | None = getattr(ip, _ATTR, None)
    if magics is None:
        return
    for event, hook in (
        ("post_run_cell", magics.post_run_cell),
        ("pre_run_cell", magics.cell_started),
        ("post_run_cell", magics.cell_finished),
    ):
        try:
            ip.events.unregister(event, hook)
        except ValueError:
            pass
    magics.close()
    # every reference the shell holds, so the unloaded instance (and its host) is collected
    ip.configurables[:] = [c for c in ip.configurables if c is not magics]
    manager = ip.magics_manager
    if manager.registry.get(type(magics).__name__) is magics:
        del manager.registry[type(magics).__name__]
    manager.magics["line"].pop("dsh", None)
    manager.magics["cell"].pop("dsh", None)
    setattr(ip, _ATTR, None)
