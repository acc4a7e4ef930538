"""``%%dsh`` (the cell is the prompt) and ``%dsh`` (everything else), with traitlets configuration.

Configuration: ``%config DshMagics.model = "deepseek-v4-pro"`` or ``c.DshMagics.model = …`` in
``ipython_config.py``; unset options fall back to the environment (``DEEPSEEK_API_KEY``,
``DEEPSEEK_BASE_URL``, ``DSH_HOME``, ``DSH_PERMISSION_MODE`` …). The API key is never echoed.

Modes: **background** (default in a live frontend, i.e. one that offers stdin): the cell returns
at once and the output keeps updating. **wait** (``--wait``, and automatically under nbclient /
nbconvert / papermill / terminal IPython): the cell returns when the run has settled; approvals are
asked on stdin when offered, else decided by ``headless_approval``; "Interrupt kernel" stops the
waiting, not the run.

Notebook tools (``notebook_tools``, on by default): see :mod:`.tools_host`.

This module only declares the configuration and parses arguments, and imports nothing heavy:
``%load_ext`` costs IPython, traitlets and these declarations. The agent and the prompt machinery
(:class:`~.prompting.Prompting`: the runtime client, the protocol models, the transcript, anyio)
are built on first use — the first ``%%dsh``/``%dsh``, or the background prewarm
(:mod:`.warmup`), whichever comes first. One cell's life is in :mod:`.run`, the line commands in
:mod:`.commands`.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from typing import TYPE_CHECKING, Any

from IPython.core.error import UsageError
from IPython.core.magic import (
    Magics,
    line_cell_magic,
    magics_class,
    needs_local_scope,
    no_var_expand,
)

from ...errors import DshError, PromptError
from ..notebook.cell_record import CellRecord
from ..options.cell_options import cell_option_arguments, parse_cell_options
from ..options.line_args import check_line, expand_variables
from ..options.settings import KernelSettings, setting_traits, settings_of
from ..showing.kernel_facts import stdin_available
from .warmup import after_loading_cell, import_widget_in_background

if TYPE_CHECKING:
    from ..agent import NotebookAgent
    from .prompting import Prompting

__all__ = ["DshMagics"]

log = logging.getLogger(__name__)


def _running_loop() -> asyncio.AbstractEventLoop | None:
    """The loop running on this thread (ipykernel's, inside a cell), else None (terminal)."""
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


@magics_class
class DshMagics(Magics):
    """The agent in the notebook. See ``%%dsh?`` and ``%dsh help``."""

    # one configurable trait per KernelSettings field: what %config DshMagics.x = … sets
    vars().update(setting_traits())

    def __init__(self, shell: Any = None, **kwargs: Any) -> None:
        super().__init__(shell=shell, **kwargs)
        self.record = CellRecord(shell)  # the person's cells, on record from load on
        self._kernel_loop = _running_loop()  # made in %load_ext: the kernel's loop, if any
        self._build_lock = threading.Lock()
        self._prompting: Prompting | None = None
        self._warming: threading.Thread | None = None
        self._closing = False

    def settings(self) -> KernelSettings:
        """The current configuration, as the agent reads it (the key only in a masked repr)."""
        return settings_of(self)

    # -- the agent, built on first use ---------------------------------------------------------

    def _machinery(self) -> Prompting:
        """The agent and the prompt machinery, built once (any thread; a second caller waits for
        the first): the one place the heavy modules are imported."""
        with self._build_lock:
            if self._prompting is None:
                from .prompting import Prompting  # runtime client, protocol, transcript, anyio

                self._prompting = Prompting(
                    self.shell, self.settings, self.set_trait, self.record, self._kernel_loop
                )
            return self._prompting

    @property
    def agent(self) -> NotebookAgent:
        """This kernel's agent (built now if neither a prompt nor the prewarm built it yet)."""
        return self._machinery().agent

    @property
    def agent_built(self) -> bool:
        """Whether the agent exists (its modules are imported)."""
        return self._prompting is not None

    # -- prewarm -------------------------------------------------------------------------------

    def prewarm_now(self) -> None:
        """``prewarm = True``: build the agent and start the runtime on a background thread now
        (during the loading cell, which does not wait for either)."""
        self._warm_in_background(lambda agent: agent.host.prewarm())

    def prewarm_when_frontend_answers(self) -> None:
        """Where a person is at the keyboard (main thread, in ``%load_ext``): build the agent
        and start the runtime in the background once the loading cell has finished, or when the
        page extension answers its ``hello`` (which imports the widget ahead too), whichever
        comes first; open the page extension's comm now.

        "At the keyboard" is the request allowing stdin: JupyterLab, Notebook 7, VS Code, Colab
        and classic Notebook do; nbclient/nbconvert/papermill do not (nothing starts there), nor
        does a terminal. ``DshMagics.prewarm`` is read when the loading cell has finished, so
        ``False`` set in that cell still applies. The start never blocks the kernel and prints
        nothing; a failure is kept and reported by the first prompt (the next one tries again).
        """
        if not stdin_available(self.shell):
            return
        link = self.record.frontend_link
        link.on_hello = self._frontend_answered
        link.open()
        after_loading_cell(self.shell, self._start_in_background)

    def _frontend_answered(self) -> None:
        if self.settings().prewarm is False:
            return
        import_widget_in_background()
        self._start_in_background()

    def _start_in_background(self) -> None:
        if self.settings().prewarm is False:  # read now: set in the loading cell, it applies
            return
        self._warm_in_background(lambda agent: agent.start_in_background())

    def _warm_in_background(self, start: Any) -> None:
        """Build the agent on a daemon thread (once), then ``start(agent)``. Prints nothing: a
        failed build is left for the first prompt, which builds again on the main thread and
        reports it; a failed start is kept by the host for the first prompt."""
        with self._build_lock:
            if self._closing or self._warming is not None:
                return

            def warm() -> None:
                try:
                    agent = self._machinery().agent
                    if not self._closing:
                        start(agent)
                except Exception as exc:
                    log.debug("dsh: the background prewarm failed (%r)", exc)

            self._warming = threading.Thread(target=warm, name="dsh-prewarm", daemon=True)
            self._warming.start()

    # -- the magic -----------------------------------------------------------------------------

    @cell_option_arguments
    @no_var_expand  # expanded below, once the line's length is known to be sane
    @needs_local_scope
    @line_cell_magic
    def dsh(
        self, line: str, cell: str | None = None, local_ns: dict[str, Any] | None = None
    ) -> Any:
        """Send the cell to the DeepSeek Harness agent; ``%dsh help`` lists the line commands.

        A line longer than ``line_args.LINE_MAX`` is refused at once with one line, before
        anything reads it (IPython's variable expansion included, which this magic does itself
        on a line that fits). Everything the call prints, and the error it raises, is masked
        with the kernel's secrets on its way out (``Prompting.masked_output``)."""
        check_line(line, "%dsh" if cell is None else "%%dsh")
        line = expand_variables(line, self.shell.user_ns if self.shell else {}, local_ns)
        machinery = self._machinery()
        with machinery.masked_output():  # what the call prints, and its error, go out masked
            if cell is None:
                return machinery.run_line(line)
            options = parse_cell_options(self.dsh, line)
            try:
                machinery.run_cell(options, cell)
            except (PromptError, DshError, ValueError) as exc:
                raise UsageError(str(exc)) from None
        return None

    # -- hooks (registered by the extension) ---------------------------------------------------

    def post_run_cell(self, result: Any) -> None:
        self.record.post_run_cell(result)

    def cell_started(self, *info: Any) -> None:
        prompting = self._prompting
        if prompting is None:
            self.record.cell_started()
        else:
            prompting.agent.cell_started(*info)

    def cell_finished(self, *result: Any) -> None:
        prompting = self._prompting
        if prompting is not None:
            prompting.agent.cell_finished(*result)

    def close(self) -> None:
        """Fail pending requests closed, close the runtime, stop the pump (after a background
        build in flight has finished). Idempotent."""
        with self._build_lock:
            self._closing = True
            warming = self._warming
        if warming is not None and warming is not threading.current_thread():
            warming.join()
        if self._prompting is not None:
            self._prompting.agent.close()
        else:
            self.record.close()
