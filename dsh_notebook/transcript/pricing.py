"""What a run costs, estimated: the runtime's token counts times a per-model price table.

The default table is DeepSeek's published list price, taken on :data:`PRICES_AS_OF` from
https://api-docs.deepseek.com/quick_start/pricing (US dollars per million tokens: input that
missed the cache, input read from the cache, output). ``deepseek-flash`` and
``deepseek-v4-flash`` (the runtime's default model names, not on that page) are priced as
``deepseek-chat``: an assumption, said so in the README. A kernel setting replaces the table
(``%config DshMagics.prices``, see :func:`parse_prices`).

Guarantees: pure (no IO, no clock); a model the table does not name has no cost (``None``),
never a guessed one; the result is an estimate and every view labels it so.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from . import schema

__all__ = [
    "DEFAULT_PRICES",
    "PRICES_AS_OF",
    "Price",
    "estimate_cost",
    "format_usd",
    "parse_prices",
    "prices_setting",
]

PRICES_AS_OF = "2025-09-05"
"""The date the default table's rates took effect (DeepSeek's pricing page, read 2026-12-04)."""


@dataclass(frozen=True)
class Price:
    """US dollars per million tokens, and the date the rates were taken (ISO)."""

    input: float
    cached_input: float
    output: float
    as_of: str = PRICES_AS_OF

    def __post_init__(self) -> None:
        for name in ("input", "cached_input", "output"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
                raise ValueError(f"price {name} must be a number >= 0 (dollars per 1M tokens)")


_LIST_PRICE = Price(input=0.56, cached_input=0.07, output=1.68)

DEFAULT_PRICES: Mapping[str, Price] = {
    "deepseek-chat": _LIST_PRICE,
    "deepseek-reasoner": _LIST_PRICE,
    "deepseek-flash": _LIST_PRICE,
    "deepseek-v4-flash": _LIST_PRICE,
}


def estimate_cost(
    usage: schema.Usage, model: str | None, prices: Mapping[str, Price] | None = None
) -> schema.Cost | None:
    """The estimated cost of ``usage`` on ``model`` (``None``: no model, or no price for it).

    Uncached input (``input_tokens``) and cache writes at the input rate, cache reads at the
    cached rate, output (reasoning included) at the output rate.
    """
    table = DEFAULT_PRICES if prices is None else prices
    price = table.get(model) if model else None
    if price is None or model is None:
        return None
    usd = (
        (usage["input_tokens"] + usage["cache_write_tokens"]) * price.input
        + usage["cache_read_tokens"] * price.cached_input
        + usage["output_tokens"] * price.output
    ) / 1_000_000
    return {"usd": usd, "model": model, "as_of": price.as_of}


def format_usd(usd: float) -> str:
    """``~$0.0012`` style: an estimate, with enough digits for a small run."""
    if usd >= 1:
        return f"~${usd:,.2f}"
    if usd >= 0.01:
        return f"~${usd:.3f}"
    return f"~${usd:.4f}" if usd >= 0.0001 else ("~$0" if usd == 0 else "<$0.0001")


def parse_prices(value: Any) -> dict[str, Price]:
    """A price table from a setting: ``{model: {"input": x, "cached_input": y, "output": z,
    "as_of": "YYYY-MM-DD"?}}``, merged over :data:`DEFAULT_PRICES`. A bad entry is a one-line
    ``ValueError`` naming it."""
    if not isinstance(value, Mapping):
        raise ValueError("prices must be a dict {model: {input, cached_input, output, as_of?}}")
    table = dict(DEFAULT_PRICES)
    for model, entry in value.items():
        if not isinstance(model, str) or not isinstance(entry, Mapping):
            raise ValueError(f"prices[{model!r}] must be a dict {{input, cached_input, output}}")
        unknown = set(entry) - {"input", "cached_input", "output", "as_of"}
        missing = {"input", "cached_input", "output"} - set(entry)
        if unknown or missing:
            raise ValueError(
                f"prices[{model!r}]: needs input, cached_input, output (and as_of); "
                f"got {sorted(entry)}"
            )
        as_of = entry.get("as_of", "set by you")
        table[model] = Price(
            input=entry["input"],
            cached_input=entry["cached_input"],
            output=entry["output"],
            as_of=str(as_of),
        )
    return table


def prices_setting(text: str) -> Mapping[str, Price]:
    """The table the ``prices`` setting (JSON text, see :func:`parse_prices`) describes; empty:
    :data:`DEFAULT_PRICES`. A value that does not parse is a one-line ``ValueError``."""
    if not text.strip():
        return DEFAULT_PRICES
    try:
        value = json.loads(text)
    except ValueError as exc:
        raise ValueError(f"DshMagics.prices is not JSON ({exc})") from None
    try:
        return parse_prices(value)
    except ValueError as exc:
        raise ValueError(f"DshMagics.prices: {exc}") from None
