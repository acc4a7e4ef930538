"""What the analysis of a card's code reports, and what it knows of the calls it meets.

The frozen effect records :func:`~.consequences.analyse` returns (:class:`Mutation`,
:class:`FileEffect`, :class:`OutsideEffect`, inside :class:`~.consequences.Consequences`) and the
tables of calls known to change their receiver or argument, touch files, start processes, reach
the network or run code built at run time; the IPython pre-pass (:mod:`.ipython_lines`) and the
walk (:mod:`.code_walk`) read them. Plain data, no IO.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from typing import Literal

__all__ = [
    "DYNAMIC_FUNCTIONS",
    "FILE_FUNCTIONS",
    "FILE_METHODS",
    "FileEffect",
    "FileVerb",
    "INPLACE_FUNCTIONS",
    "INSTALL",
    "MUTATING_METHODS",
    "Mutation",
    "NETWORK_MODULES",
    "OS_MODULES",
    "OutsideEffect",
    "OutsideKind",
    "PATH_ARG",
    "PATH_METHODS",
    "PROCESS_CELL_MAGICS",
    "PROCESS_FUNCTIONS",
    "PROCESS_PREFIXES",
    "PYTHON_BODY_CELL_MAGICS",
    "QUIET_MAGICS",
    "SHORT",
    "command_effect",
    "short",
    "unparse",
]

FileVerb = Literal["writes", "appends to", "creates", "deletes", "moves", "copies"]
OutsideKind = Literal["process", "network", "install"]


@dataclass(frozen=True)
class Mutation:
    """An existing object changed in place: its name and how (``x[...] = …``, ``.append()``)."""

    name: str
    how: str


@dataclass(frozen=True)
class FileEffect:
    """A file touched: the verb, the path (``None``: not a literal) and the call that does it."""

    verb: FileVerb
    path: str | None
    via: str


@dataclass(frozen=True)
class OutsideEffect:
    """A process, a network request or an install, and what it runs or reaches."""

    kind: OutsideKind
    what: str


# --- what is known about calls --------------------------------------------------------------

MUTATING_METHODS = frozenset(
    {
        "append", "extend", "insert", "remove", "pop", "clear", "sort", "reverse",  # list
        "update", "popitem", "setdefault",  # dict
        "add", "discard", "difference_update", "intersection_update",  # set
        "symmetric_difference_update",
        "fill", "resize", "put", "itemset", "setflags", "partition",  # ndarray
        "rename_axis_inplace", "set_axis_inplace",
    }
)  # fmt: skip
"""Methods that change their receiver (lists, dicts, sets, DataFrames, Series, ndarrays)."""

INPLACE_FUNCTIONS = {
    "random.shuffle": 0, "numpy.random.shuffle": 0, "numpy.copyto": 0, "numpy.put": 0,
    "numpy.place": 0, "numpy.fill_diagonal": 0, "numpy.random.Generator.shuffle": 0,
}  # fmt: skip
"""Functions that change the argument at this position in place."""

FILE_METHODS: dict[str, FileVerb] = {
    "to_csv": "writes", "to_parquet": "writes", "to_excel": "writes", "to_json": "writes",
    "to_pickle": "writes", "to_feather": "writes", "to_hdf": "writes", "to_stata": "writes",
    "to_orc": "writes", "to_xml": "writes", "to_html": "writes", "to_latex": "writes",
    "to_markdown": "writes", "to_netcdf": "writes", "to_zarr": "writes", "to_file": "writes",
    "savefig": "writes", "tofile": "writes", "write_csv": "writes", "write_parquet": "writes",
    "write_json": "writes", "write_ndjson": "writes", "write_ipc": "writes",
    "write_excel": "writes", "write_image": "writes", "write_html": "writes",
}  # fmt: skip
"""Methods that write the file named by their first argument (or ``path``/``path_or_buf``…)."""

PATH_METHODS: dict[str, FileVerb] = {
    "write_text": "writes", "write_bytes": "writes", "unlink": "deletes", "rmdir": "deletes",
    "rename": "moves", "replace": "moves", "touch": "creates", "mkdir": "creates",
    "symlink_to": "creates", "hardlink_to": "creates",
}  # fmt: skip
"""``pathlib.Path`` methods that act on the receiver's path."""

FILE_FUNCTIONS: dict[str, FileVerb] = {
    "os.remove": "deletes", "os.unlink": "deletes", "os.rmdir": "deletes",
    "os.removedirs": "deletes", "os.rename": "moves", "os.renames": "moves",
    "os.replace": "moves", "os.makedirs": "creates", "os.mkdir": "creates",
    "os.truncate": "writes", "os.chmod": "writes", "os.symlink": "creates", "os.link": "creates",
    "shutil.rmtree": "deletes", "shutil.move": "moves", "shutil.copy": "copies",
    "shutil.copy2": "copies", "shutil.copyfile": "copies", "shutil.copytree": "copies",
    "shutil.copymode": "writes", "shutil.copystat": "writes", "shutil.make_archive": "creates",
    "shutil.unpack_archive": "creates", "shutil.chown": "writes",
    "numpy.save": "writes", "numpy.savez": "writes", "numpy.savez_compressed": "writes",
    "numpy.savetxt": "writes", "joblib.dump": "writes", "torch.save": "writes",
    "matplotlib.pyplot.savefig": "writes", "urllib.request.urlretrieve": "writes",
    "tempfile.mkstemp": "creates", "tempfile.mkdtemp": "creates",
}  # fmt: skip
"""Functions that touch the file named by an argument (:data:`PATH_ARG` says which)."""

PATH_ARG = {
    "joblib.dump": 1, "torch.save": 1, "urllib.request.urlretrieve": 1, "os.symlink": 1,
    "os.link": 1,
}  # fmt: skip
"""Where the path is when it is not the first argument (the file written, for a move its source)."""

PROCESS_FUNCTIONS = frozenset(
    {
        "subprocess.run", "subprocess.call", "subprocess.check_call", "subprocess.check_output",
        "subprocess.Popen", "subprocess.getoutput", "subprocess.getstatusoutput", "os.system",
        "os.popen", "os.startfile", "os.kill", "os.killpg", "os.fork", "os.forkpty",
        "asyncio.create_subprocess_exec", "asyncio.create_subprocess_shell",
        "multiprocessing.Process", "multiprocessing.Pool", "pty.spawn", "webbrowser.open",
    }
)  # fmt: skip
PROCESS_PREFIXES = ("os.exec", "os.spawn", "os.posix_spawn")

NETWORK_MODULES = frozenset({
    "requests", "httpx", "urllib.request", "urllib3", "socket", "http.client", "aiohttp",
    "ftplib", "smtplib", "poplib", "imaplib", "telnetlib", "paramiko", "websocket",
    "websockets", "boto3", "xmlrpc.client",
})  # fmt: skip
"""Calls into these modules reach the network (``requests.get``, ``socket.socket``…)."""

DYNAMIC_FUNCTIONS = {
    "exec": "exec(…) runs code built at run time",
    "eval": "eval(…) runs code built at run time",
    "compile": "compile(…) builds code to run later",
    "globals": "globals() gives the code every name of the notebook",
    "locals": "locals() gives the code every name of the notebook",
    "vars": "vars() gives the code names it can change",
    "__import__": "__import__(…) imports a module named at run time",
    "importlib.reload": "importlib.reload(…) runs a module's code again",
    "runpy.run_path": "runpy runs another file's code",
    "runpy.run_module": "runpy runs another module's code",
}  # fmt: skip

QUIET_MAGICS = frozenset(
    {
        "matplotlib", "time", "timeit", "who", "whos", "who_ls", "pwd", "history", "pinfo",
        "pinfo2", "pdoc", "psource", "pfile", "lsmagic", "magic", "precision", "page",
        "load_ext", "reload_ext", "config", "xmode", "debug", "prun", "capture", "pprint",
        "notebook", "doctest_mode", "colors", "env_list", "ls", "cat", "less", "more", "dsh",
    }
)  # fmt: skip
"""Line magics that change nothing the analysis reports (``%ls`` lists, ``%time`` times)."""
PYTHON_BODY_CELL_MAGICS = frozenset({"time", "timeit", "capture", "prun", "debug"})
"""Cell magics whose body is Python that runs in the namespace: analysed as such."""
PROCESS_CELL_MAGICS = frozenset(
    {
        "bash",
        "sh",
        "script",
        "system",
        "perl",
        "ruby",
        "python2",
        "python3",
        "pypy",
        "cmd",
        "powershell",
    }
)

OS_MODULES = {"posix": "os", "nt": "os", "posixpath": "os.path", "ntpath": "os.path"}
INSTALL = re.compile(r"\b(?:pip3?|uv\s+pip|conda|mamba|micromamba|apt(?:-get)?|npm|brew)\s+"
                      r"(?:-\S+\s+)*install\b")  # fmt: skip
SHORT = 80
"""Longest quoted piece of code, path or command."""


def short(text: str, limit: int = SHORT) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def short_path(text: str, limit: int = SHORT) -> str:
    """A path within ``limit`` characters, cut at its start: the file's name is what tells."""
    text = " ".join(text.split())
    return text if len(text) <= limit else "…" + text[len(text) - limit + 1 :]


def unparse(node: ast.AST) -> str:
    try:
        return short(ast.unparse(node))
    except Exception:  # pragma: no cover - unparse of a parsed tree
        return "…"


def command_effect(command: str, via: str) -> OutsideEffect:
    """A shell command's effect: an install when it installs packages, else a process."""
    if INSTALL.search(command):
        return OutsideEffect("install", f"{via}{short(command)}")
    return OutsideEffect("process", f"{via}{short(command)}")
