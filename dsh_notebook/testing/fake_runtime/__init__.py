"""Protocol-exact fake of the DeepSeek Harness SDK runtime 0.2.1-rc.2 (``dsh --profile sdk``).

Standard library only, and nothing of ``dsh_notebook`` (an independent oracle of the protocol). It
runs as a module, or by the path of this package's directory, which imports no ``dsh_notebook`` at
all (no pydantic, no anyio: the fast way tests spawn it, see
:data:`dsh_notebook.testing.harnesses.FAKE_RUNTIME`)::

    python -m dsh_notebook.testing.fake_runtime --scenario NAME [--scenario-arg K=V ...]
    python .../dsh_notebook/testing/fake_runtime [--profile sdk] [--patch FILE ...]

Launcher flags (``--profile``, ``--patch``, ``--from-default-profile``) and unknown tokens are accepted
and ignored; ``--version`` prints ``0.2.1-rc.2``. When ``--scenario`` is absent the scenario comes
from ``$DSH_FAKE_SCENARIO`` (default ``normal``); ``$DSH_FAKE_SCENARIO_ARGS`` holds ``K=V`` pairs
separated by spaces or commas, and ``--scenario-arg`` wins per key. ``$DSH_HOME`` enables
persistence in ``$DSH_HOME/fake-sessions/<escaped id>.json`` (unset: in memory only), so a second
process with the same home can ``session/resume``. ``$DSH_PERMISSION_MODE`` picks the preset.

Wire (as the real runtime): newline-delimited compact JSON-RPC 2.0; stdout carries only frames,
each written whole under one lock; diagnostics go to stderr. Invalid JSON, non-objects and client
notifications are ignored; responses are matched to the fake's own server requests. Every failure
is ``-32603`` with the runtime's message text. Notifications of a prompt (receipt
``agent/inbox/spliced`` with the ``messageId``, ``running``, ``turn/start``, claim splice) precede
its ``{messageId}`` response; ``session/wait`` answers after the last notification of the whole
session tree (subagents included). ``shutdown`` -> ``{}`` then exit 0 (calls in between fail with
``SDK server is shutting down``); stdin EOF and SIGTERM -> exit 0.

Scenarios (scenario args in brackets; every scenario also takes ``server_name=X``,
``omit_server_name=1``, ``server_version=V``, ``init_delay=S``, ``shutdown_delay=S`` (0.05) and
``seed=1``, which adds what ``serve-seed`` adds):

* ``normal``: each prompt is one turn answering "Hello from the fake runtime." or TEXT for a
  ``[[reply:TEXT]]`` tag. Prompts to a busy session queue as the next turn.
* ``serve-seed``: ``initialize`` returns ``capabilities``; ``session/query`` is served
  (``{kind:"prompt", messageId}``, or for "/..." text ``{kind:"command", execution}`` preceded by
  ``session.query.completed``).
* ``subagent``: the parent starts a background child (own UUID session, forwarded seq from 3); the
  parent's turn 1 ends and it goes idle while the child still runs; the child's settle starts
  parent turn 2 (``subagent-settled`` splice, ``subagent.finished``), final "The child said hello."
  [``child_delay=S`` (0.05) after the parent's first idle].
* ``approval``: a ``bash`` escalation: ``approval/asked``, then, only if ``initialize`` had
  ``approvalRequests: true``, a server request ``approval/request``; only a result exactly
  ``{"outcome":"allowed-once"}`` runs the command ("ran"). ``rejected``/``cancelled`` are kept; any
  other result or an error response counts as ``rejected``; no opt-in -> ``unavailable``.
  [``approval_timeout=S``: stop waiting, outcome ``cancelled``, a late answer is ignored]
* ``question``: ``ask_user_question``; with ``capabilities.userQuestions: true`` a server request
  ``user-question/ask``; the tool result is the answer JSON, or an error naming ``ASK_CANCELLED``,
  ``BAD_ANSWER``, ``PROVIDER_ERROR`` (error response), ``ASK_TIMED_OUT`` or ``NO_PROVIDER``.
  [``question_timeout=S``: send ``user-question.cancelled`` and ignore a late answer]
* ``malformed``: garbage stdout lines (non-JSON, array, scalars, empty line, truncated JSON, a
  response with an unknown id, an unknown notification, an unknown server request, a session.event
  of unknown type with an unknown block type and extra fields) around an otherwise normal turn.
* ``crash``: after a few events of the first turn, stderr lines and exit status 3 without answering
  pending requests [``crash_point=turn|before-response|initialize``, ``exit_code=N``].
* ``flood``: ``count`` (10000) ``plugin:flood`` events in the turn, as fast as possible.
* ``slow``: the model step takes ``seconds`` (2). ``big-frame``: ~``size`` (300000) chars of text.
* ``error-turn``: ``assistant/attempt`` then ``turn/end`` kind error [``error_code``
  (INVALID_REQUEST), ``error_message``, ``error_status`` (400)].
* ``no-initialize``: reads and ignores everything, exits on EOF or SIGTERM. ``ignore-sigterm``: the
  same but also ignores SIGTERM/SIGINT and EOF (only SIGKILL ends it) [``serve=1``: serve
  normally but never answer ``shutdown``].

A ``[[turn:KIND]]`` tag (normal, subagent, approval, question, malformed, crash, flood, slow, error,
big) overrides the scenario's turn for one prompt.

Modules, one concept each: :mod:`.wire` (stdout frames, server requests), :mod:`.records` (the
runtime's texts and records), :mod:`.admission` (images, answers), :mod:`.sessions` (session
state), :mod:`.runtime` (read loop, dispatch, store, periods), :mod:`.methods` (the SDK methods),
:mod:`.steps` (the events a turn is made of), :mod:`.scenarios` (the turns), :mod:`.cli`.
Importing this package imports nothing; :func:`.cli.main` runs the fake.
"""
