"""What a kernel leaves under ``DSH_HOME/dsh_notebook/`` (issue 24, item 6): a corrupt, foreign or
newer file there gives one line that says what to fix, or a safe fallback; never a traceback,
never a lost record that was valid.

- session locks: a lock path that is a folder, a ``locks`` path that is a file, a lock file this
  user cannot write (a shared ``DSH_HOME``);
- kept transcripts: a JSON list or string; a bundle with other MIME types than markdown/plain;
- the conversations index: NaN, infinite, huge and negative times; unknown keys kept by a write;
- a record from a newer ``dsh_notebook``: read-only (read as absent, never overwritten).
"""

from __future__ import annotations

import json
import math
import time
from pathlib import Path
from typing import Any

import pytest

from dsh_notebook.errors import DshError
from dsh_notebook.kernel.persistence import session_lock
from dsh_notebook.kernel.persistence.conversations import ConversationIndex
from dsh_notebook.kernel.persistence.kept import skipped_bundle
from dsh_notebook.kernel.persistence.ledger import PromptLedger
from dsh_notebook.kernel.persistence.session_lock import SessionInUse, SessionLocks

# -- session locks -----------------------------------------------------------------------------


def one_line_error(home: Path, session: str = "s1") -> str:
    with pytest.raises(DshError) as caught:  # a DshError: the cell shows its message, one line
        SessionLocks(home).claim(session)
    message = str(caught.value)
    assert "\n" not in message and f"{session!r}" in message
    return message


def test_a_lock_path_that_is_a_folder_is_one_line_that_says_to_remove_it(tmp_path: Path) -> None:
    lock = tmp_path / "dsh_notebook" / "locks" / "s1.lock"
    lock.mkdir(parents=True)
    message = one_line_error(tmp_path)
    assert str(lock) in message and "is a folder" in message and "remove it" in message
    assert lock.is_dir()  # nothing removed behind the person's back


def test_a_locks_path_that_is_a_file_is_one_line_that_says_to_remove_it(tmp_path: Path) -> None:
    locks = tmp_path / "dsh_notebook" / "locks"
    locks.parent.mkdir(parents=True)
    locks.write_text("not a folder")
    message = one_line_error(tmp_path)
    assert str(locks) in message and "is a file" in message and "remove that file" in message
    assert locks.read_text() == "not a folder"


def test_a_lock_file_this_user_cannot_write_is_still_locked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A shared DSH_HOME: another user's lock file (mode 0644) opens read-only for us; ``flock``
    locks through that handle, so the session is held and still refused to a second holder."""
    lock = tmp_path / "dsh_notebook" / "locks" / "s1.lock"
    lock.parent.mkdir(parents=True)
    lock.write_text(json.dumps({"pid": 1, "owner": "kernel of another user"}))

    def open_as_another_user(file: Any, mode: str = "r", *args: Any, **kwargs: Any) -> Any:
        if Path(file) == lock and set(mode) & set("wa+x"):  # tests run as root: chmod would not do
            raise PermissionError(13, "Permission denied", str(file))
        return open(file, mode, *args, **kwargs)

    monkeypatch.setattr(session_lock, "open", open_as_another_user, raising=False)
    mine = SessionLocks(tmp_path)
    mine.claim("s1")
    with pytest.raises(SessionInUse, match="in use by another kernel"):
        SessionLocks(tmp_path).claim("s1")
    assert json.loads(lock.read_text())["owner"] == "kernel of another user"  # not written
    mine.release_all()
    SessionLocks(tmp_path).claim("s1")  # released: the next kernel gets it


def test_a_lock_folder_this_user_cannot_write_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "dsh_notebook" / "locks").mkdir(parents=True)

    def denied(file: Any, mode: str = "r", *args: Any, **kwargs: Any) -> Any:
        if "s1.lock" in str(file):
            raise (PermissionError if set(mode) & set("wa+x") else FileNotFoundError)(
                13, "Permission denied", str(file)
            )
        return open(file, mode, *args, **kwargs)

    monkeypatch.setattr(session_lock, "open", denied, raising=False)
    message = one_line_error(tmp_path)
    assert "Permission denied" in message and "DSH_HOME of its own" in message


# -- kept transcripts (Restart & Run All) --------------------------------------------------------


def kept_file(home: Path, session: str, prompt: str) -> Path:
    path = home / "dsh_notebook" / "ledger" / session / f"{PromptLedger.digest(prompt)}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


@pytest.mark.parametrize("content", ["[1, 2]", '"a string"', "42", "null"])
def test_a_kept_transcript_that_is_not_an_object_reads_as_none(
    tmp_path: Path, content: str
) -> None:
    kept_file(tmp_path, "s", "p").write_text(content)
    ledger = PromptLedger(tmp_path)
    assert ledger.kept_transcript("s", "p") is None
    assert ledger.kept_agent_cells("s", "p") == 0


def test_a_kept_transcript_is_shown_as_markdown_and_plain_text_only(tmp_path: Path) -> None:
    hostile = {
        "text/markdown": "**the answer**",
        "text/plain": "dsh · settled\nthe answer",
        "text/html": "<img src=x onerror=alert(1)>",
        "application/javascript": "alert(1)",
        "image/svg+xml": "<svg onload=alert(1)/>",
    }
    record = {"bundle": hostile, "variables": ["df"], "agent_cells": 1, "time": 1.0}
    kept_file(tmp_path, "s", "p").write_text(json.dumps(record))
    kept = PromptLedger(tmp_path).kept_transcript("s", "p")
    assert kept is not None
    bundle, variables = kept
    assert bundle == {"text/markdown": "**the answer**", "text/plain": "dsh · settled\nthe answer"}
    assert variables == ["df"]
    shown = skipped_bundle(hostile, [], "s")  # the displayed bundle, whatever it is given
    assert set(shown) == {"text/markdown", "text/plain"}


def test_a_kept_transcript_with_html_only_shows_nothing_of_it(tmp_path: Path) -> None:
    record = {"bundle": {"text/html": "<script>alert(1)</script>"}, "variables": []}
    kept_file(tmp_path, "s", "p").write_text(json.dumps(record))
    assert PromptLedger(tmp_path).kept_transcript("s", "p") is None


def test_a_kept_transcript_of_todays_format_still_reads_and_new_ones_are_versioned(
    tmp_path: Path,
) -> None:
    old = {"bundle": {"text/plain": "t"}, "variables": ["x", 3], "agent_cells": 2, "time": 1.0}
    kept_file(tmp_path, "s", "old").write_text(json.dumps(old, ensure_ascii=False))
    ledger = PromptLedger(tmp_path)
    assert ledger.kept_transcript("s", "old") == ({"text/plain": "t"}, ["x"])
    assert ledger.kept_agent_cells("s", "old") == 2
    ledger.keep_transcript("s", "new", {"text/plain": "é \ud800"}, [], agent_cells=1)
    written = json.loads(kept_file(tmp_path, "s", "new").read_text())
    assert written["v"] == 1 and written["agent_cells"] == 1
    assert ledger.kept_transcript("s", "new") == ({"text/plain": "é \ud800"}, [])
    assert not list(kept_file(tmp_path, "s", "new").parent.glob("*.tmp"))  # renamed, none left


# -- the conversations index ---------------------------------------------------------------------


def index_file(home: Path, notebook: str = "nb") -> Path:
    path = home / "dsh_notebook" / "conversations" / f"{notebook}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


def shown(started: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(started))  # what %dsh sessions prints


def test_times_no_date_can_be_shown_for_fall_back_and_never_raise(tmp_path: Path) -> None:
    now = time.time()
    # as json.dumps writes them (allow_nan): NaN, Infinity; and huge, negative, text, bool
    index_file(tmp_path).write_text(
        "{"
        f'"nan-start": {{"first_prompt": "a", "started": NaN, "last": {now}, "prompts": 2}},'
        f'"huge-start": {{"first_prompt": "b", "started": 1e308, "last": {now - 5}}},'
        f'"inf-last": {{"first_prompt": "c", "started": {now - 9}, "last": Infinity}},'
        f'"negative": {{"first_prompt": "d", "started": -5, "last": {now - 20}}},'
        f'"huge-int": {{"first_prompt": "e", "started": {10**400}, "last": {now - 30}}},'
        '"no-time": {"first_prompt": "f", "started": NaN, "last": "yesterday"},'
        f'"bool": {{"first_prompt": "g", "started": true, "last": {now - 40}}}'
        "}"
    )
    index = ConversationIndex(tmp_path)
    listed = index.list("nb")
    for c in listed:
        assert math.isfinite(c.started) and math.isfinite(c.last)
        assert shown(c.started) and shown(c.last)  # must not raise
    by_id = {c.session_id: c for c in listed}
    assert set(by_id) == {"nan-start", "huge-start", "inf-last", "negative", "huge-int", "bool"}
    assert by_id["nan-start"].started == by_id["nan-start"].last == pytest.approx(now)
    assert by_id["nan-start"].prompts == 2
    assert by_id["inf-last"].last == by_id["inf-last"].started == pytest.approx(now - 9)
    # a new prompt into an entry without a usable time keeps it and makes it listable again
    index.note("nb", "no-time", "ignored: not its first prompt")
    again = {c.session_id: c for c in index.list("nb")}["no-time"]
    assert again.first_prompt == "f" and again.prompts == 1 and shown(again.started)


def test_a_write_keeps_the_index_unknown_keys(tmp_path: Path) -> None:
    """Today's shape (sessions at the top level) reads the same; the next write moves them under
    ``sessions`` beside ``"v": 1`` and keeps every key it does not know, at both levels."""
    path = index_file(tmp_path)
    legacy = {
        "format": "x-future",
        "owner": {"team": 7},  # an object of unknown meaning at the top level: kept as an entry
        "v": {"first_prompt": "a session named v", "started": 10.0, "last": 20.0, "prompts": 1},
        "old": {"first_prompt": "first", "started": 1.0, "last": 2.0, "prompts": 3, "color": "red"},
    }
    path.write_text(json.dumps(legacy))
    index = ConversationIndex(tmp_path)
    assert [c.session_id for c in index.list("nb")] == ["v", "old"]
    index.note("nb", "new", "hello")
    data = json.loads(path.read_text())
    assert data["v"] == 1 and data["format"] == "x-future"
    assert data["sessions"]["old"]["color"] == "red" and data["sessions"]["owner"] == {"team": 7}
    assert data["sessions"]["v"]["first_prompt"] == "a session named v"
    assert [c.session_id for c in index.list("nb")] == ["new", "v", "old"]
    data["extra"] = [1, 2]
    path.write_text(json.dumps(data))
    index.note("nb", "old", "again")
    after = json.loads(path.read_text())
    assert after["extra"] == [1, 2] and after["format"] == "x-future"
    assert after["sessions"]["old"]["prompts"] == 4 and after["sessions"]["old"]["color"] == "red"


# -- records of a newer dsh_notebook: read-only ---------------------------------------------------


def test_a_newer_conversations_index_is_left_as_it_is(tmp_path: Path) -> None:
    path = index_file(tmp_path)
    newer = json.dumps(
        {"v": 2, "format": "nested-v2", "sessions": {"s": {"title": "?", "started": 1.0}}}
    )
    path.write_text(newer)
    index = ConversationIndex(tmp_path)
    assert index.list("nb") == []
    index.note("nb", "s", "a prompt")
    assert path.read_text() == newer


def test_a_newer_ledger_is_left_as_it_is_and_never_skips(tmp_path: Path) -> None:
    ledger = PromptLedger(tmp_path)
    index = tmp_path / "dsh_notebook" / "ledger" / "s.json"
    index.parent.mkdir(parents=True)
    newer = json.dumps({"v": 2, PromptLedger.digest("p"): {"at": 1.0}})
    index.write_text(newer)
    assert not ledger.answered_elsewhere("s", "p")  # a shape it does not know: sent, not skipped
    ledger.record("s", "q")
    assert index.read_text() == newer
    kept = kept_file(tmp_path, "s", "p")
    newer_kept = json.dumps({"v": 2, "bundle": {"text/plain": "t"}, "variables": []})
    kept.write_text(newer_kept)
    assert ledger.kept_transcript("s", "p") is None
    ledger.keep_transcript("s", "p", {"text/plain": "mine"}, [])
    assert kept.read_text() == newer_kept


def test_the_ledger_index_of_todays_format_reads_and_keeps_its_keys(tmp_path: Path) -> None:
    index = tmp_path / "dsh_notebook" / "ledger" / "s.json"
    index.parent.mkdir(parents=True)
    index.write_text(json.dumps({PromptLedger.digest("p"): 1.0, "format": "x"}))
    assert PromptLedger(tmp_path).answered_elsewhere("s", "p")
    PromptLedger(tmp_path).record("s", "q")
    data = json.loads(index.read_text())
    assert data["v"] == 1 and data["format"] == "x" and PromptLedger.digest("p") in data


# -- the helper itself ---------------------------------------------------------------------------


def test_a_record_write_never_raises_and_never_leaves_a_part(tmp_path: Path) -> None:
    from dsh_notebook.kernel.persistence import (
        store,  # here: the other tests also run on a tree without it
    )

    path = tmp_path / "r.json"
    assert store.write(path, {"a": 1}, replacing=None)
    before = path.read_bytes()
    assert not store.write(path, {"a": object()}, replacing=store.read(path))  # not JSON
    assert path.read_bytes() == before and [p.name for p in tmp_path.iterdir()] == ["r.json"]
    (tmp_path / "folder.json").mkdir()
    assert store.read(tmp_path / "folder.json") is None
    assert not store.write(tmp_path / "folder.json", {"a": 1}, replacing=None)
    assert not store.write(path / "below-a-file.json", {"a": 1}, replacing=None)
    assert [p.name for p in tmp_path.iterdir() if p.suffix == ".tmp"] == []
