"""The agent's window onto the kernel: notebook tools served over MCP on 127.0.0.1.

- :mod:`.variables`, :mod:`.history`, :mod:`.run_python`: the tools as plain functions over a
  shell (no MCP, no threads): the namespace's variables, the kernel's executed cells, and the
  agent's code run in the kernel;
- :mod:`.executor`: :class:`~.executor.MainThreadExecutor`, which runs ``run_python`` on the
  kernel's main thread between cells;
- :mod:`.schemas`: the tools' names, descriptions and input schemas as the model sees them;
- :mod:`.server`: :class:`~.server.NotebookMcpServer` (uvicorn thread, bearer auth, approval);
- :mod:`.patch`: the runtime ``--patch`` file that mounts the server;
- :mod:`.cells`: ``notebook_cells``' text (the page's cells, or the history as a fallback);
- :mod:`.figures`: the figures a ``run_python`` call or a person's cell displayed, as text.

This package deliberately re-exports nothing: importing it must not import ``mcp`` or
``uvicorn`` (the ``jupyter`` extra), so the kernel can import the submodules lazily and turn the
tools off when they are missing. IPython is imported only lazily, inside :func:`.run_python.run_python`.
"""
