"""The analyst's next step for a request: read the turn, pick one tool call or the answer.

:func:`respond` is a step factory for the scripted model server (``ScriptContext -> Step``). It is
stateless and deterministic: the step follows from the newest prompt and this turn's tool results
alone (:mod:`.turn`), in this order: list the kernel's variables (``notebook_variables``), describe
the chosen DataFrame (``describe_variable``), ask a question card when a name is ambiguous
(``ask_user_question``), compute in the kernel (``run_python``, approved by the person), answer.
Reading tools need no approval; a rejected approval is answered with :data:`~.compose.REJECTED`
and nothing is retried. It runs on a model-server thread and never raises (a failure becomes an
honest text answer).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, replace
from typing import Any, Final

from ..scripted_model import AfterReply, ScriptContext, Step, ToolCall
from . import compose
from .delegate import delegate_step
from .intents import Intent, question_text, recognize
from .names import (
    Column,
    Frame,
    Variable,
    described_shape,
    mentioned,
    parse_frame,
    parse_variables,
    words,
)
from .plans import Selection, program, read_results
from .turn import Turn, read_turn

__all__ = ["next_step", "respond"]

#: Words of a question that never name a value to filter on.
_STOP: Final = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "by",
        "compute",
        "do",
        "does",
        "each",
        "for",
        "from",
        "grows",
        "how",
        "in",
        "is",
        "it",
        "me",
        "my",
        "of",
        "on",
        "or",
        "over",
        "per",
        "plot",
        "rows",
        "show",
        "tell",
        "than",
        "that",
        "the",
        "there",
        "this",
        "to",
        "top",
        "total",
        "what",
        "which",
        "with",
    ]
)


def respond(ctx: ScriptContext) -> Step:
    """The step answering ``ctx``'s request (a :data:`~dsh_notebook.scripted_model.StepFactory`)."""
    try:
        turn = read_turn(ctx.body)
        step = next_step(turn, recognize(turn.prompt))
    except Exception as exc:  # never leave the runtime without a reply
        return Step(text=f"The demo analyst failed on this request ({type(exc).__name__}).")
    parent = turn.parent  # set on every step of a subagent child
    if parent and ctx.session_id and not step.tool_calls:
        # a child's report waits until its parent's turn has ended (see AfterReply), so the
        # settled notice always starts the parent's next turn: the same transcript every run
        step = replace(step, after_reply=AfterReply(parent, mention=ctx.session_id))
    return step


def _say(text: str) -> Step:
    return Step(text=text, output_tokens=max(1, len(text) // 4))


def _call(turn: Turn, tool: str, args: dict[str, Any], text: str) -> Step:
    return Step(text=text, tool_calls=(ToolCall(turn.tool_name(tool), args),))


def _answers(turn: Turn) -> dict[str, str]:
    """Question id -> first selected label (or custom text) of this turn's answered cards."""
    out: dict[str, str] = {}
    for exchange in turn.done("ask_user_question"):
        if exchange.is_error or not exchange.result:
            continue
        try:
            data = json.loads(exchange.result[exchange.result.find("{") :])
        except ValueError:
            continue
        for answer in data.get("answers", []) if isinstance(data, dict) else []:
            picked = answer.get("selected") or []
            value = picked[0] if picked else answer.get("custom")
            if isinstance(value, str) and isinstance(answer.get("id"), str):
                out[answer["id"]] = value
    return out


def _ask(turn: Turn, qid: str, question: str, header: str, options: list[str]) -> Step:
    if not turn.offers("ask_user_question"):
        listed = ", ".join(f"`{o}`" for o in options)
        return _say(f"{question} Please say which one in your prompt: {listed}.")
    payload = {
        "questions": [
            {
                "id": qid,
                "question": question,
                "header": header,
                "options": [{"label": o} for o in options[:8]],
            }
        ]
    }
    return _call(turn, "ask_user_question", payload, question)


@dataclass(frozen=True)
class _Need:
    """A step that must happen before the answer (a tool call or a question)."""

    step: Step


def _choose_frame(turn: Turn, variables: list[Variable], question: str) -> Variable | _Need:
    frames = [v for v in variables if v.is_frame]
    if not frames:
        names = ", ".join(f"`{v.name}`" for v in variables) or "nothing"
        return _Need(_say(f"There is no pandas DataFrame in your kernel (it holds {names})."))
    picked = _answers(turn).get("frame")
    by_name = {v.name: v for v in frames}
    if picked in by_name:
        return by_name[picked]
    quoted = [v for v in frames if f"`{v.name}`" in question]
    if len(quoted) == 1:  # a name in backticks is the frame ("revenue in `sales`")
        return quoted[0]
    hits = sorted((mentioned(question, v.name), v.name) for v in frames)
    hits = [h for h in hits if h[0] >= 0]
    # "total revenue per region in `sales`": a frame named like another one's column is the
    # column when that other frame is named too
    columns_of_named = " ".join(by_name[n].preview for _, n in hits)
    hits = [h for h in hits if mentioned(columns_of_named, h[1] + " (") < 0] or hits
    if hits:
        return by_name[hits[0][1]]
    shape = described_shape(turn.prompt)
    if shape is not None:
        same = [v for v in frames if v.shape == f"({shape[0]}, {shape[1]})"]
        if len(same) == 1:
            return same[0]
    if len(frames) == 1:
        return frames[0]
    return _Need(
        _ask(turn, "frame", "Which DataFrame do you mean?", "DataFrame", [v.name for v in frames])
    )


def _mentions(question: str, columns: list[Column]) -> list[Column]:
    found = sorted((mentioned(question, c.name), i, c) for i, c in enumerate(columns))
    return [c for pos, _, c in found if pos >= 0]


_FOLLOW: Final = re.compile(r"\s+([A-Za-z0-9_.\-]+)")


def _filters(question: str, frame: Frame) -> tuple[tuple[str, Any], ...]:
    """``column value`` pairs in the question ("in week 8", "year 2024") for numeric columns."""
    out: list[tuple[str, Any]] = []
    for column in frame.columns:
        if not column.numeric:
            continue
        pattern = r"[\s_\-]*".join(re.escape(p) for p in re.split(r"[\s_\-]+", column.name) if p)
        match = re.search(rf"(?<![A-Za-z0-9]){pattern}\s+(-?\d+(?:\.\d+)?)\b", question, re.I)
        if match:
            number = float(match.group(1))
            out.append((column.name, int(number) if number.is_integer() else number))
    return tuple(out)


def _select(
    turn: Turn, intent: Intent, frame: Frame, question: str
) -> tuple[Intent, Selection] | _Need:
    """The names a computation uses, from the question and the frame's real columns."""
    answers = _answers(turn)
    named = _mentions(question, list(frame.columns))
    filters = _filters(question, frame)
    filtered = {c for c, _ in filters}
    strings = [c for c in frame.columns if not c.numeric and not c.temporal]
    groups = [c for c in named if not c.numeric and not c.temporal and c.name not in filtered]
    orders = [c for c in frame.columns if c.orders_rows]
    order = next((c for c in named if c.orders_rows), orders[0] if orders else None)
    values = [c for c in named if c.numeric and c.name not in filtered and not c.orders_rows] or [
        c for c in named if c.numeric and c.name not in filtered
    ]
    candidates = [c for c in frame.numeric if not c.orders_rows] or frame.numeric
    value: Column | None = values[0] if values else None
    if answers.get("column") and frame.column(answers["column"]):
        value = frame.column(answers["column"])
    if value is None and len(candidates) == 1:
        value = candidates[0]
    group = groups[0] if groups else None
    if answers.get("group") and frame.column(answers["group"]):
        group = frame.column(answers["group"])
    kind = intent.kind
    if kind == "rank" and group is not None:
        intent = replace(intent, kind="aggregate", n=intent.n or None)
        kind = "aggregate"
    if kind == "aggregate" and group is None:
        options = [c.name for c in strings if not c.orders_rows] or [c.name for c in strings]
        if len(options) == 1:
            group = frame.column(options[0])
        elif options:
            return _Need(_ask(turn, "group", "Group by which column?", "Group by", options))
        else:
            return _Need(_say(f"`{frame.name}` has no column to group by."))
    needs_value = kind in ("rank", "trend", "plot") or (
        kind == "aggregate" and intent.agg != "count"
    )
    if frame.wide and kind in ("trend", "plot"):
        needs_value = False
    if needs_value and value is None:
        options = [c.name for c in candidates]
        if not options:
            return _Need(_say(f"`{frame.name}` has no numeric column to compute with."))
        return _Need(_ask(turn, "column", "Which column should I use?", "Column", options))
    if kind in ("trend", "plot") and order is not None and group is not None and order == group:
        order = None
    over_time = re.search(
        r"\bover time\b|\btrend\b|\b(daily|weekly|monthly|yearly)\b", question, re.I
    )
    if kind == "plot" and not (any(c.orders_rows for c in named) or over_time):
        order = None  # "plot beds per ward": one bar per ward; a line only over a named time
    numeric_named = [c.name for c in named if c.numeric]
    sel = Selection(
        frame=frame.name,
        value=value.name if value else None,
        group=group.name if group else None,
        order=order.name if (order and kind in ("trend", "plot")) else None,
        sort_order=bool(order and (order.temporal or order.numeric)),
        filters=filters,
        words=tuple(
            w.lower()
            for w in words(question)
            if w.lower() not in _STOP
            and w != frame.name
            and not w[0].isdigit()
            and all(mentioned(w, c.name) < 0 for c in frame.columns)
        ),
        string_columns=tuple(c.name for c in strings),
        wide=frame.wide and kind in ("trend", "plot"),
        columns=tuple(
            numeric_named if len(numeric_named) >= 2 else [c.name for c in frame.numeric]
        ),
    )
    return intent, sel


def _computed_answer(intent: Intent, sel: Selection, frame: Frame, result: dict[str, Any]) -> str:
    if intent.kind == "aggregate":
        return compose.aggregate_answer(
            result, group=sel.group or "", value=sel.value, agg=intent.agg,
            largest=intent.largest, n=intent.n,
        )  # fmt: skip
    if intent.kind == "rank":
        labels = [c.name for c in frame.columns if not c.numeric or c.orders_rows]
        return compose.rank_answer(
            result, value=sel.value or "", largest=intent.largest, label_columns=labels
        )
    if intent.kind == "trend":
        order = sel.order or (frame.index_name if sel.wide else None)
        return compose.trend_answer(result, value=sel.value, order=order)
    if intent.kind == "duplicates":
        return compose.duplicates_answer(result, frame=frame.name)
    if intent.kind == "correlation":
        return compose.correlation_answer(result, frame=frame.name)
    title = f"`{sel.value or frame.name}`" + (f" per `{sel.group}`" if sel.group else "")
    return compose.plot_answer(result, title=title)


def _doing(intent: Intent, sel: Selection) -> str:
    what = {
        "aggregate": f"the {intent.agg} of `{sel.value}` per `{sel.group}`"
        if intent.agg != "count" and sel.value
        else f"the row count per `{sel.group}`",
        "rank": f"the {'largest' if intent.largest else 'smallest'} `{sel.value}` values",
        "trend": "a least-squares slope per group",
        "duplicates": "the duplicated rows",
        "correlation": "the correlations of the numeric columns",
        "plot": "the plot",
    }[intent.kind]
    return f"I will compute {what} in your kernel with `run_python` (it asks for your approval)."


def next_step(turn: Turn, intent: Intent) -> Step:
    """The next step of ``turn`` for ``intent`` (see the module docstring for the order)."""
    for exchange in turn.exchanges:
        if (
            exchange.tool in ("run_python", "bash", "write")
            and exchange.is_error
            and ("reject" in (exchange.result or "").lower())
        ):
            return _say(compose.REJECTED)
    for exchange in turn.exchanges:
        if exchange.tool == "ask_user_question" and exchange.is_error:
            # the result does not say who dismissed it (a click, or nobody there to answer:
            # nbconvert, CI), so the answer does not claim the person did
            return _say(
                "The question was dismissed without an answer, so I computed nothing; name the "
                "DataFrame and columns in your prompt and ask again."
            )
    if intent.kind == "help":
        return _say(compose.HELP)
    if intent.background and turn.offers("subagent") and turn.parent is None:
        return delegate_step(turn, question_text(turn.prompt))
    if intent.kind in ("script", "run_script"):
        from .scripts import script_step

        return script_step(turn, intent)
    if not turn.offers("notebook_variables"):
        return _say(
            "The notebook tools are turned off in this kernel, so I cannot see your data. "
            + compose.HELP
        )
    listed = turn.done("notebook_variables")
    if not listed:
        return _call(turn, "notebook_variables", {}, "Let me see what is in your kernel.")
    variables = parse_variables(listed[-1].result or "")
    if intent.kind == "variables":
        return _say(compose.variables_answer(variables))
    question = question_text(turn.prompt)
    chosen = _choose_frame(turn, variables, question)
    if isinstance(chosen, _Need):
        return chosen.step
    described = [e for e in turn.done("describe_variable") if e.input.get("name") == chosen.name]
    if not described:
        return _call(
            turn, "describe_variable", {"name": chosen.name}, f"Let me look at `{chosen.name}`."
        )
    frame = parse_frame(chosen.name, described[-1].result or "")
    if frame is None:
        return _say(f"`{chosen.name}` is not a DataFrame I can read.")
    if intent.kind == "describe":
        return _say(compose.describe_answer(frame))
    if intent.kind == "missing":
        return _say(compose.missing_answer(frame))
    selected = _select(turn, intent, frame, question)
    if isinstance(selected, _Need):
        return selected.step
    intent, sel = selected
    if not turn.offers("run_python"):
        return _say("`run_python` is turned off in this kernel, so I cannot compute in it.")
    ran = turn.done("run_python")
    if not ran and turn.parent is not None:
        return _say(
            "I am a subagent and cannot ask for approval, so I did not run code in your kernel; "
            'ask without "in the background" to compute this.'
        )
    if not ran:
        code = program(intent.kind, sel, agg=intent.agg, largest=intent.largest, n=intent.n or 5)
        return _call(turn, "run_python", {"code": code}, _doing(intent, sel))
    last = ran[-1]
    results = read_results(last.result or "")
    if last.is_error or not results:
        first = (last.result or "no output").strip().splitlines()
        tail = first[-1] if first else "no output"
        return _say(f"The code did not produce an answer: {tail}")
    return _say(_computed_answer(intent, sel, frame, results[-1]))
