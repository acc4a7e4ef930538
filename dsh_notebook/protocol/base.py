"""The base class of every wire model.

Guarantees shared by all models in :mod:`dsh_notebook.protocol`:

- Field names are Python style; the wire names (camelCase) are aliases. Both are accepted on input.
- Unknown fields are kept (``extra="allow"``) and written back on dump, so a frame from a newer
  runtime survives a parse/dump round trip unchanged.
- :meth:`WireModel.to_wire` dumps only what was set (or given a non-default value), by alias, so a
  parsed frame dumps to the same JSON object it came from.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict
from pydantic.alias_generators import to_camel

__all__ = ["WireModel"]


class WireModel(BaseModel):
    """A JSON object of the SDK protocol. Unknown fields are preserved."""

    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
        alias_generator=to_camel,
        serialize_by_alias=True,
    )

    def to_wire(self) -> dict[str, Any]:
        """The JSON object for the wire: set fields and extras only, camelCase names."""
        return self.model_dump(mode="json", by_alias=True, exclude_unset=True)
