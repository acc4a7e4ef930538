"""The live run widget (anywidget). Imported only when the widget format is used.

``RunWidget(snapshot, on_action=...)`` shows one run; call ``update(snapshot)`` from any thread.
Its JavaScript is built from ``js/`` into ``static/widget.js`` (one ES module) and
``static/widget.css``. The delta protocol is described in :mod:`.delta`, the clicks in
:mod:`.actions`; every custom message is typed in :mod:`._messages`.
"""

from ._messages import WidgetAction
from .actions import ACTION_TYPES, GONE, check_action
from .delta import DeltaError, apply_ops, diff_snapshots
from .run_widget import STATIC, ActionCallback, RunWidget

__all__ = [
    "ACTION_TYPES",
    "GONE",
    "STATIC",
    "ActionCallback",
    "DeltaError",
    "RunWidget",
    "WidgetAction",
    "apply_ops",
    "check_action",
    "diff_snapshots",
]
