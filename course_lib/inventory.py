"""Notebook 02's infrastructure: the inventory, the request limits and the tool table of the stock tutorial.

What the application owns, apart from the dispatcher itself (the key of notebook 02, `course_lib.stock`):
the read-only inventory, the byte and nesting limits a request must fit, the `ToolRule` a tool table maps
each offered name to, and the one tool it offers, `stock_lookup`. Nothing here imports a key.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any, NamedTuple

from course_lib.errors import DispatchError

__all__ = ["MAX_NESTING", "MAX_REQUEST_BYTES", "STOCK", "STOCK_TOOLS", "ToolRule", "stock_lookup"]

STOCK: Mapping[str, int] = MappingProxyType({"PEN": 12, "BOOK": 3})
"""Available quantity per SKU; read-only so no caller can change the shared inventory."""

MAX_REQUEST_BYTES = 2048
"""The largest request accepted, measured in UTF-8 bytes before parsing."""

MAX_NESTING = 64
"""The deepest bracket nesting accepted; checked before parsing so json never recurses deeply."""


class ToolRule(NamedTuple):
    """What the application allows for one tool: its exact argument names and the function that runs it."""

    arguments: frozenset[str]
    handler: Callable[[dict[str, Any]], dict[str, Any]]


def stock_lookup(arguments: dict[str, Any]) -> dict[str, Any]:
    """Look up the available quantity of one known SKU."""
    sku = arguments["sku"]
    if type(sku) is not str or sku not in STOCK:
        raise DispatchError(f"unknown sku: {sku!r}")
    return {"sku": sku, "available": STOCK[sku]}


STOCK_TOOLS: Mapping[str, ToolRule] = MappingProxyType(
    {"stock_lookup": ToolRule(frozenset({"sku"}), stock_lookup)}
)
"""The only tool `course_lib.stock.dispatch` offers."""
