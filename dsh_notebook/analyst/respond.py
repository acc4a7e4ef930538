"""The analyst's next step for a request: read the turn, pick one tool call or the answer.

:func:`respond` is a step factory for the scripted model server (``ScriptContext -> Step``). It is
stateless and deterministic: the step follows from the newest prompt and this turn's tool results
alone (:mod:`.turn`), in this order: list the kernel's variables (``notebook_variables``), describe
the chosen DataFrame (``describe_variable``), ask a question card when a name is ambiguous
(``ask_user_question``), compute in the kernel (``run_python``, approved by the person), answer.
Reading tools need no approval; a refused call is answered by :func:`~.compose.refused`, worded by
who refused ("you rejected" only for the person's own rejection), and nothing is retried. It runs on a model-server thread and never raises (a failure becomes an
honest text answer).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, replace

from ..scripted_model import AfterReply, ScriptContext, Step
from . import compose
from .columns import (
    GROUP_MARK,
    calendar_of,
    mentions,
    number_filters,
    samples_of,
    time_unit,
    word_filters,
)
from .delegate import delegate_step
from .explain import Failure, explain, read_failure
from .fix import fix_step, fix_target, kernel_names
from .intents import Intent, question_text, recognize
from .names import (
    Column,
    Frame,
    Variable,
    described_shape,
    mentioned,
    parse_frame,
    parse_variables,
)
from .plans import Selection, agg_label, program
from .reading import Reading, read
from .reading_turn import reading_step
from .results import (
    error_line,
    read_number,
    read_series,
    read_table,
    unread_answer,
    value_text,
)
from .turn import Turn, read_turn, say

__all__ = ["next_step", "respond"]


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
        return say(f"{question} Please say which one in your prompt: {listed}.")
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
    return turn.call("ask_user_question", payload, question)


@dataclass(frozen=True)
class _Need:
    """A step that must happen before the answer (a tool call or a question)."""

    step: Step


def _choose_frame(turn: Turn, variables: list[Variable], question: str) -> Variable | _Need:
    frames = [v for v in variables if v.is_frame]
    if not frames:
        names = ", ".join(f"`{v.name}`" for v in variables) or "nothing"
        return _Need(say(f"There is no pandas DataFrame in your kernel (it holds {names})."))
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


@dataclass(frozen=True)
class _Plan:
    """What will be computed: the intent as read, the names, and why when it is a guess."""

    intent: Intent
    sel: Selection
    why: str = ""


def _select(turn: Turn, intent: Intent, frame: Frame, question: str) -> _Plan | _Need:
    """The names a computation uses, from the question and the frame's real columns."""
    answers = _answers(turn)
    named = mentions(question, list(frame.columns))
    filters = number_filters(question, frame)
    filtered = {c for c, _ in filters}
    strings = [c for c in frame.columns if not c.numeric and not c.temporal]
    marked = [
        c for c in named
        if GROUP_MARK.search(question[: mentioned(question, c.name)])
        and (not c.numeric or c.orders_rows) and c.name not in filtered
    ]  # fmt: skip
    orders = [c for c in frame.columns if c.orders_rows]
    order = next((c for c in named if c.orders_rows), orders[0] if orders else None)
    values = [c for c in named if c.numeric and c.name not in filtered and not c.orders_rows] or [
        c for c in named if c.numeric and c.name not in filtered and c not in marked
    ]
    candidates = [c for c in frame.numeric if not c.orders_rows] or frame.numeric
    value: Column | None = values[0] if values else None
    kind = intent.kind
    agg = intent.agg
    why = ""
    if agg == "nunique":
        texts = [c for c in named if c not in marked and c.name not in filtered]
        value = texts[0] if texts else None
    if answers.get("column") and frame.column(answers["column"]):
        value = frame.column(answers["column"])
    if value is None and len(candidates) == 1 and agg not in ("count", "nunique", "share"):
        value = candidates[0]
    if marked:
        group: Column | None = marked[0]
    else:
        loose = [c for c in named if not c.numeric and not c.temporal and c.name not in filtered]
        loose = [c for c in loose if c != value]
        group = loose[0] if loose and kind != "aggregate" else None
        if group is None and kind in ("rank", "plot", "trend") and loose:
            group = loose[0]
    if answers.get("group") and frame.column(answers["group"]):
        group = frame.column(answers["group"])
    if kind == "rank" and group is not None:
        intent = replace(intent, kind="aggregate", n=intent.n or None)
        kind = "aggregate"
    if kind == "aggregate" and agg == "count" and value is not None and value.numeric:
        agg = "sum"  # "total number of deliveries" with a numeric deliveries column
        intent = replace(intent, agg="sum")
        why = f'`{value.name}` holds numbers, so I read "number of {value.name}" as their sum'
    elif kind == "aggregate" and not intent.agg_named:
        why = "you named no statistic, so I took the total"
    if kind == "aggregate" and agg == "share" and group is None:
        options = [c.name for c in strings if c != value]
        if not options:
            return _Need(say(f"`{frame.name}` has no column to take shares over."))
        return _Need(_ask(turn, "group", "Shares per which column?", "Group by", options))
    if kind == "aggregate" and agg in ("count", "share"):
        value = value if agg == "share" and value is not None and value.numeric else None
    needs_value = kind in ("rank", "trend", "plot") or (
        kind == "aggregate" and agg not in ("count", "share")
    )
    if frame.wide and kind in ("trend", "plot"):
        needs_value = False
    if needs_value and value is None:
        options = [c.name for c in (strings if agg == "nunique" else candidates)]
        if not options:
            return _Need(say(f"`{frame.name}` has no numeric column to compute with."))
        return _Need(_ask(turn, "column", "Which column should I use?", "Column", options))
    if kind in ("trend", "plot") and order is not None and group is not None and order == group:
        order = None
    over_time = re.search(
        r"\bover time\b|\btrend\b|\b(daily|weekly|monthly|yearly)\b", question, re.I
    )
    if kind == "plot" and not (any(c.orders_rows for c in named) or over_time):
        order = None  # "plot beds per ward": one bar per ward; a line only over a named time
    if kind == "plot" and order is not None and group is not None and group.orders_rows:
        group = None
    samples = samples_of(frame)
    time_col = order if kind in ("trend", "plot") and order else group
    calendar = calendar_of(samples.get(time_col.name, [])) if time_col is not None else None
    skip = {c for c, _ in filters} | {group.name if group else ""}
    numeric_named = [c.name for c in named if c.numeric]
    sel = Selection(
        frame=frame.name,
        value=value.name if value else None,
        group=group.name if group else None,
        order=order.name if (order and kind in ("trend", "plot")) else None,
        sort_order=bool(order and (order.temporal or order.numeric)),
        filters=filters + word_filters(question, frame, skip),
        wide=frame.wide and kind in ("trend", "plot"),
        columns=tuple(
            numeric_named if len(numeric_named) >= 2 else [c.name for c in frame.numeric]
        ),
        time_group=bool(group and group.orders_rows),
        calendar=calendar if (time_col is not None and not time_col.numeric) else None,
        decimals=bool(
            value
            and value.numeric
            and (not _is_int(value) or agg in ("mean", "median", "std", "share"))
        ),
    )
    return _Plan(intent, sel, why)


#: The question kinds read by the reading contract (:mod:`.reading`).
_READ_KINDS = ("aggregate", "rank", "trend", "plot")


def _frame_by_reading(
    turn: Turn, variables: list[Variable], question: str, ask: _Need
) -> Variable | _Need:
    """No frame named and several in the kernel: describe them (reading tools, no approval) and
    take the one the question reads fully against; several: ask; none: the closest, whose
    reading then says what it could not use."""
    frames = [v for v in variables if v.is_frame][:4]
    readings: list[tuple[int, Variable]] = []
    for var in frames:
        described = [e for e in turn.done("describe_variable") if e.input.get("name") == var.name]
        if not described:
            return _Need(turn.call("describe_variable", {"name": var.name}, f"Let me look at `{var.name}`."))  # fmt: skip
        frame = parse_frame(var.name, described[-1].result or "")
        if frame is not None:
            readings.append((len(read(question, frame).unread), var))
    fits = [v for n, v in readings if n == 0]
    if len(fits) == 1:
        return fits[0]
    if not fits and readings:
        return min(readings, key=lambda r: r[0])[1]
    return ask


def _older_reads(reading: Reading, selected: _Plan | _Need) -> bool:
    """Whether the older selection computes exactly this reading (then its wording is kept):
    the same measure, grouping, equality filters and statistic, and nothing it cannot do."""
    if not isinstance(selected, _Plan) or reading.grain or reading.time or reading.trend:
        return False
    if any(c.op != "==" for c in reading.conditions) or reading.plot == "line":
        return False
    sel = selected.sel
    wanted = {(c.column, c.value) for c in reading.conditions}
    agg = selected.intent.agg
    return (
        sel.value == reading.measure
        and sel.group == reading.group
        and set(sel.filters) == wanted
        and (agg == reading.agg or (agg == "count" and reading.measure is None))
        and selected.intent.kind in ("aggregate", "plot")
        and (reading.best is None or selected.intent.largest == (reading.best == "max"))
    )


def _names_only_said(reading: Reading, plan: _Plan, turn: Turn) -> bool:
    """Whether the older selection computes with columns the question named (or a card chose):
    it never picks another column on its own."""
    if plan.sel.wide:
        return True
    said = set(reading.mentioned) | set(_answers(turn).values())
    return all(name is None or name in said for name in (plan.sel.value, plan.sel.group))


def _is_int(column: Column) -> bool:
    return column.dtype.lower().startswith(("int", "uint"))


def _items(text: str, index: str | None) -> tuple[list[tuple[str, float]], int | None]:
    listing = read_series(text, index)
    if listing is None:
        return [], None
    return list(listing.items), listing.total


def _computed_answer(plan: _Plan, frame: Frame, result: str) -> str:
    intent, sel = plan.intent, plan.sel
    text = value_text(result) or ""
    where = compose.filters_text(sel.filters)
    if intent.kind == "aggregate":
        lead = compose.reading(agg=intent.agg, value=sel.value, group=sel.group, why=plan.why)
        if sel.group is None:
            number = read_number(text)
            if number is None:
                return unread_answer(result)
            items: list[tuple[str, float]] = [("", number)]
            total: int | None = None
        else:
            items, total = _items(text, sel.group)
            if not items and total != 0:
                return unread_answer(result)
        return compose.aggregate_answer(
            items, group=sel.group, value=sel.value, agg=intent.agg, largest=intent.largest,
            n=intent.n, time_order=sel.time_group, lead=lead, shown_of=total, filters=where,
            ranks=intent.ranks_groups,
        )  # fmt: skip
    if intent.kind == "rank":
        rows = read_table(text, [c.name for c in frame.columns])
        if rows is None:
            return unread_answer(result)
        labels = [c.name for c in frame.columns if not c.numeric or c.orders_rows]
        return compose.rank_answer(
            rows, value=sel.value or "", largest=intent.largest, labels=labels, filters=where
        )
    if intent.kind == "trend":
        slopes, _ = _items(text, sel.group)
        if not slopes and read_number(text) is None:
            return unread_answer(result)
        order = sel.order or (frame.index_name if sel.wide else None)
        return compose.trend_answer(
            slopes, value=sel.value, unit=time_unit(order, frame), filters=where,
            shrinking_asked=not intent.largest,
        )  # fmt: skip
    if intent.kind == "duplicates":
        count = read_number(text)
        if count is None:
            return unread_answer(result)
        return compose.duplicates_answer(count, frame=frame.name, rows=frame.rows)
    if intent.kind == "correlation":
        return _correlation(sel, frame, text, result)
    chart = "line" if sel.wide or sel.order else "bar" if sel.group else "histogram"
    label = f"`{sel.value or frame.name}`"
    if chart == "bar":
        title = (
            f"the number of rows per `{sel.group}`"
            if intent.agg == "count" or sel.value is None
            else f"the {agg_label(intent.agg)} {label} per `{sel.group}`"
        )
        items, _ = _items(text, sel.group)
        return compose.plot_answer(chart, title=title, items=items, filters=where)
    if chart == "line":
        per = f" per `{sel.group}`" if sel.group else ""
        over = f" over `{sel.order}`" if sel.order else ""
        title = f"the total {label}{per}{over}" if not sel.wide else f"`{frame.name}`"
        return compose.plot_answer(chart, title=title, filters=where)
    return compose.plot_answer(chart, title=label, filters=where)


def _correlation(sel: Selection, frame: Frame, text: str, result: str) -> str:
    pairs: list[tuple[str, str, float]] = []
    if len(sel.columns) == 2:
        r = read_number(text)
        if r is None:
            return unread_answer(result)
        pairs.append((sel.columns[0], sel.columns[1], r))
    else:
        rows = read_table(text, list(sel.columns))
        if rows is None:
            return unread_answer(result)
        for i, row in enumerate(rows):
            for b in sel.columns[i + 1 :]:
                try:
                    pairs.append((sel.columns[i], b, float(row[b])))
                except (KeyError, ValueError):
                    continue
    return compose.correlation_answer(pairs, frame=frame.name)


def _doing(plan: _Plan) -> str:
    intent, sel = plan.intent, plan.sel
    per = f" per `{sel.group}`" if sel.group else ""
    what = {
        "aggregate": compose.reading(agg=intent.agg, value=sel.value, group=sel.group)[2:-1],
        "rank": f"find the {'largest' if intent.largest else 'smallest'} `{sel.value}` rows",
        "trend": f"fit a trend line to `{sel.value}`{per}"
        if sel.value
        else "fit a trend line to each column",
        "duplicates": "count the duplicated rows",
        "correlation": "correlate the numeric columns",
        "plot": "draw the plot",
    }[intent.kind]
    what = what.replace("summed", "sum").replace("averaged", "average").replace("took", "take")
    what = what.replace("counted", "count")
    return f"I will {what} in your kernel with `run_python` (it asks for your approval)."


def _explain_step(turn: Turn, failure: Failure) -> Step:
    """Ask dsh: read the kernel's names, then explain (never runs code)."""
    names = kernel_names(turn, failure)
    return names if isinstance(names, Step) else say(explain(failure, *names))


def next_step(turn: Turn, intent: Intent) -> Step:
    """The next step of ``turn`` for ``intent`` (see the module docstring for the order)."""
    for exchange in turn.exchanges:
        if exchange.tool in ("run_python", "bash", "write") and exchange.is_error:
            answer = compose.refused(exchange.result or "")
            if answer is not None:
                return say(answer)
    for exchange in turn.exchanges:
        if exchange.tool == "ask_user_question" and exchange.is_error:
            # the result does not say who dismissed it (a click, or nobody there to answer:
            # nbconvert, CI), so the answer does not claim the person did
            return say(
                "The question was dismissed without an answer, so I computed nothing; name the "
                "DataFrame and columns in your prompt and ask again."
            )
    fix = fix_target(turn.prompt)
    if fix is not None and (failure := read_failure(turn.prompt)) is not None:
        return fix_step(turn, failure, fix)  # Fix with dsh: an edit_cell, then run_cells
    if intent.kind == "error":
        # the traceback and the failing code arrive as named values, after the person's text
        failure = read_failure(turn.prompt)
        if failure is None:
            return say(
                "I can't explain this error without a language model (I found no exception "
                "line in it); set `DEEPSEEK_API_KEY` and restart the kernel to ask DeepSeek."
            )
        return _explain_step(turn, failure)
    if intent.kind == "help":
        return say(compose.cant(intent.unsupported) if intent.unsupported else compose.HELP)
    if intent.background and turn.offers("subagent") and turn.parent is None:
        return delegate_step(turn, question_text(turn.prompt))
    if intent.kind in ("script", "run_script"):
        from .scripts import script_step

        return script_step(turn, intent)
    if not turn.offers("notebook_variables"):
        return say(
            "The notebook tools are turned off in this kernel, so I cannot see your data. "
            + compose.HELP
        )
    listed = turn.done("notebook_variables")
    if not listed:
        return turn.call("notebook_variables", {}, "Let me see what is in your kernel.")
    variables = parse_variables(listed[-1].result or "")
    if intent.kind == "variables":
        return say(compose.variables_answer(variables))
    question = question_text(turn.prompt)
    chosen = _choose_frame(turn, variables, question)
    reads = intent.kind in _READ_KINDS and not intent.code_only
    if isinstance(chosen, _Need) and reads and "frame" not in _answers(turn):
        chosen = _frame_by_reading(turn, variables, question, chosen)
    if isinstance(chosen, _Need):
        return chosen.step
    described = [e for e in turn.done("describe_variable") if e.input.get("name") == chosen.name]
    if not described:
        return turn.call(
            "describe_variable", {"name": chosen.name}, f"Let me look at `{chosen.name}`."
        )
    frame = parse_frame(chosen.name, described[-1].result or "")
    if frame is None:
        return say(f"`{chosen.name}` is not a DataFrame I can read.")
    if intent.kind == "describe" and not intent.code_only:
        return say(compose.describe_answer(frame))
    if intent.kind == "missing" and not intent.code_only:
        return say(compose.missing_answer(frame))
    if intent.kind in ("describe", "missing"):
        code = (
            f"{frame.name}.describe()"
            if intent.kind == "describe"
            else f"{frame.name}.isna().sum()"
        )
        return say(compose.code_answer(code, what=f"this on `{frame.name}`"))
    reading = read(question, frame) if reads else None
    if reading is not None and reading.unread:
        return say(compose.reading_declined(reading.describe(), reading.unread))
    if reading is not None and reading.legacy and (reading.trend or reading.plot):
        intent = replace(intent, kind="trend" if reading.trend else "plot")
    selected = _select(turn, intent, frame, question)
    if reading is not None and not reading.legacy and not _older_reads(reading, selected):
        return reading_step(turn, reading)
    if isinstance(selected, _Need):
        return selected.step
    if reading is not None and reading.legacy and not _names_only_said(reading, selected, turn):
        return say(compose.reading_declined(reading.describe(), (question.strip(),)))
    plan = selected
    code = program(plan.intent.kind, plan.sel, agg=plan.intent.agg, largest=plan.intent.largest,
                   n=plan.intent.n or 5)  # fmt: skip
    if intent.code_only:
        return say(compose.code_answer(code, what=_doing(plan)[7:].split(" in your kernel")[0]))
    if not turn.offers("run_python"):
        return say("`run_python` is turned off in this kernel, so I cannot compute in it.")
    ran = turn.done("run_python")
    if not ran and turn.parent is not None:
        return say(
            "I am a subagent and cannot ask for approval, so I did not run code in your kernel; "
            'ask without "in the background" to compute this.'
        )
    if not ran:
        return turn.call("run_python", {"code": code}, _doing(plan))
    last = ran[-1]
    if last.is_error or (
        error_line(last.result or "") and "value of the last expression" not in (last.result or "")
    ):
        return say(unread_answer(last.result or "no output"))
    return say(_computed_answer(plan, frame, last.result or ""))
