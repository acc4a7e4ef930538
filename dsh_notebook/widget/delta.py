"""The delta protocol between the Python widget and its views: a diff of two snapshots.

A delta turns the snapshot a view holds (``seq == base``) into the next one (``seq``)::

    {"type": "delta", "base": 41, "seq": 57, "elapsed": 12.3, "ops": [op, ...]}

Ops (typed in :mod:`._messages`) are applied in order. A *path* is a list of keys from the snapshot root; inside an item list
(``items`` of the root or of a subagent) the segment is the item's ``id``, not an index::

    {"op": "set",    "path": ["header"], "value": {...}}           replace (or add) a value
    {"op": "del",    "path": ["items", "i7", "truncated"]}         remove a key
    {"op": "append", "path": ["items", "i7", "text"], "text": "…"} grow a string
    {"op": "items",  "path": ["items"], "ids": ["i1", "i9"], "add": {"i9": {...}}}
                     reorder an item list: keep the listed items it has, add the new ones
                     (given whole), drop the others

The diff relies on the transcript's ``rev`` (the ``seq`` at which a node or anything nested in it
last changed): nodes whose ``rev`` did not move are skipped, so the cost and the size of a delta
follow what changed, not the size of the transcript. Growing text (assistant text, reasoning,
streamed tool arguments) travels as ``append`` ops: the bytes sent for a streamed answer are about
the answer's size, however often it is republished.

:func:`apply_ops` is the reference implementation of the receiving side (the JavaScript one in
``js/src/delta.ts`` follows it; the tests feed both the same deltas).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from typing import Any

from ..transcript.schema import Snapshot
from ._messages import Op

__all__ = ["DeltaError", "apply_ops", "diff_snapshots"]

_NESTED = ("approval", "question", "subagent")
_GROWING = ("text", "arguments", "result")


class DeltaError(ValueError):
    """A delta does not fit the snapshot it is applied to (the view must resync)."""


def diff_snapshots(old: Snapshot, new: Snapshot) -> list[Op]:
    """The ops that turn ``old`` into ``new`` (two snapshots of one transcript, schema 1).

    Neither snapshot is modified; the ops share values with ``new`` (send them, do not mutate them).
    """
    return _diff_root(old, new)


def _diff_root(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[Op]:
    ops: list[Op] = []
    for key, value in new.items():
        if key == "items" and isinstance(value, list) and isinstance(old.get(key), list):
            _diff_items(old[key], value, [key], ops)
        elif key not in old or old[key] != value:
            ops.append({"op": "set", "path": [key], "value": value})
    ops.extend({"op": "del", "path": [key]} for key in old if key not in new)
    return ops


def _diff_items(old: list[Any], new: list[Any], path: list[str], ops: list[Op]) -> None:
    old_by_id = {item.get("id"): item for item in old if isinstance(item, dict)}
    old_ids = [item.get("id") for item in old if isinstance(item, dict)]
    new_ids = [item.get("id") for item in new if isinstance(item, dict)]
    if (
        len(old_ids) != len(old)
        or len(new_ids) != len(new)
        or not all(isinstance(i, str) for i in new_ids)
        or len(set(new_ids)) != len(new_ids)
    ):
        ops.append({"op": "set", "path": path, "value": new})  # not an item list after all
        return
    if old_ids != new_ids:
        ops.append(
            {
                "op": "items",
                "path": path,
                "ids": [str(i) for i in new_ids],  # all str (checked above)
                "add": {item["id"]: item for item in new if item["id"] not in old_by_id},
            }
        )
    for item in new:
        before = old_by_id.get(item["id"])
        if before is not None:
            _diff_node(before, item, [*path, item["id"]], ops)


def _diff_node(
    old: Mapping[str, Any], new: Mapping[str, Any], path: list[str], ops: list[Op]
) -> None:
    if old is new or (old.get("rev") == new.get("rev") and "rev" in new):
        return
    if old.get("kind") != new.get("kind") or old.get("id") != new.get("id"):
        ops.append({"op": "set", "path": path, "value": new})
        return
    for key, value in new.items():
        before = old.get(key, _MISSING)
        if before is _MISSING:
            ops.append({"op": "set", "path": [*path, key], "value": value})
        elif key == "items" and isinstance(value, list) and isinstance(before, list):
            _diff_items(before, value, [*path, key], ops)
        elif (
            key in _NESTED
            and isinstance(value, dict)
            and isinstance(before, dict)
            and value.get("id") == before.get("id")
        ):
            _diff_node(before, value, [*path, key], ops)
        elif before == value:
            continue
        elif (
            key in _GROWING
            and isinstance(value, str)
            and isinstance(before, str)
            and before
            and value.startswith(before)
        ):
            ops.append({"op": "append", "path": [*path, key], "text": value[len(before) :]})
        else:
            ops.append({"op": "set", "path": [*path, key], "value": value})
    ops.extend({"op": "del", "path": [*path, key]} for key in old if key not in new)


_MISSING: Any = object()


def _step(container: Any, segment: str) -> Any:
    if isinstance(container, list):
        for item in container:
            if isinstance(item, dict) and item.get("id") == segment:
                return item
        raise DeltaError(f"no item {segment!r}")
    if isinstance(container, dict) and segment in container:
        return container[segment]
    raise DeltaError(f"no key {segment!r}")


def apply_ops(snapshot: Mapping[str, Any], ops: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """A copy of ``snapshot`` with ``ops`` applied; :class:`DeltaError` when they do not fit.

    The receiving side treats both as untrusted JSON (as a view must), hence the loose types.
    """
    out = copy.deepcopy(dict(snapshot))
    for op in ops:
        path = op.get("path")
        if not isinstance(path, list) or not path:
            raise DeltaError(f"bad path in {op!r}")
        parent: Any = out
        for segment in path[:-1]:
            parent = _step(parent, segment)
        last = path[-1]
        kind = op.get("op")
        if isinstance(parent, list):
            # the target is an item of a list: only whole-item replacement is addressed this way
            if kind != "set":
                raise DeltaError(f"{kind} on a list item")
            for index, item in enumerate(parent):
                if isinstance(item, dict) and item.get("id") == last:
                    parent[index] = copy.deepcopy(op["value"])
                    break
            else:
                raise DeltaError(f"no item {last!r}")
            continue
        if not isinstance(parent, dict):
            raise DeltaError(f"cannot address {last!r}")
        if kind == "set":
            parent[last] = copy.deepcopy(op["value"])
        elif kind == "del":
            parent.pop(last, None)
        elif kind == "append":
            current = parent.get(last)
            if not isinstance(current, str):
                raise DeltaError(f"append to a non-string at {path!r}")
            parent[last] = current + str(op["text"])
        elif kind == "items":
            current = parent.get(last)
            if not isinstance(current, list):
                raise DeltaError(f"items on a non-list at {path!r}")
            have = {item.get("id"): item for item in current if isinstance(item, dict)}
            add = op.get("add") or {}
            new_list = []
            for item_id in op["ids"]:
                if item_id in add:
                    new_list.append(copy.deepcopy(add[item_id]))
                elif item_id in have:
                    new_list.append(have[item_id])
                else:
                    raise DeltaError(f"item {item_id!r} neither kept nor added")
            parent[last] = new_list
        else:
            raise DeltaError(f"unknown op {kind!r}")
    return out
