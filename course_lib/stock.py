"""Notebook 02: a dispatcher that turns a JSON stock request into one application-owned lookup.

The application owns the tool names, their argument contracts and the data. A requested name is
only ever a key into `tools`; it never becomes code, a command or an import. Every way a request
can be wrong ends as a `DispatchError` (a `ValueError`); a non-str request is a `TypeError`.
This module is the key of notebook 02 and holds only the dispatcher; the inventory, the limits and the tool
table are infrastructure, in `course_lib.inventory` (re-exported here for existing callers).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any

from course_lib.errors import DispatchError
from course_lib.inventory import MAX_NESTING, MAX_REQUEST_BYTES, STOCK, STOCK_TOOLS, ToolRule, stock_lookup

__all__ = [
    "MAX_NESTING",
    "MAX_REQUEST_BYTES",
    "STOCK",
    "STOCK_TOOLS",
    "DispatchError",
    "ToolRule",
    "dispatch",
    "dispatch_with",
    "stock_lookup",
]


def dispatch(raw: str) -> dict[str, Any]:
    """Run a JSON stock request such as `{"name": "stock_lookup", "arguments": {"sku": "PEN"}}`."""
    return dispatch_with(raw, STOCK_TOOLS)


def dispatch_with(raw: str, tools: Mapping[str, ToolRule]) -> dict[str, Any]:
    """Check a JSON request `{"name", "arguments"}` against `tools` and run the named tool's handler."""
    call = _parse(raw)
    if type(call) is not dict:
        raise DispatchError(f"envelope: expected an object (dict), got {type(call).__name__}")
    if set(call) != {"name", "arguments"}:
        raise DispatchError(f"envelope: expected exactly the keys 'arguments' and 'name', got {sorted(call)}")
    name, arguments = call["name"], call["arguments"]
    if type(name) is not str:
        raise DispatchError(f"name: expected a string, got {type(name).__name__}")
    if name not in tools:
        raise DispatchError(f"unknown tool: {name!r}")
    rule = tools[name]
    if type(arguments) is not dict:
        raise DispatchError(f"arguments: expected an object (dict), got {type(arguments).__name__}")
    if set(arguments) != rule.arguments:
        raise DispatchError(
            f"arguments for {name!r}: expected exactly {sorted(rule.arguments)}, got {sorted(arguments)}"
        )
    return rule.handler(arguments)


def _parse(raw: str) -> Any:
    """Size-check, depth-check and strictly parse the request text."""
    if type(raw) is not str:
        raise TypeError(f"request must be a str, got {type(raw).__name__}")
    try:
        size = len(raw.encode("utf-8"))
    except UnicodeEncodeError:
        raise DispatchError("request is not valid UTF-8 text (it contains a lone surrogate)") from None
    if size > MAX_REQUEST_BYTES:
        raise DispatchError(f"request too large: {size} bytes > {MAX_REQUEST_BYTES}")
    if _nesting(raw) > MAX_NESTING:
        raise DispatchError(f"request nested deeper than {MAX_NESTING} levels")
    try:
        return json.loads(
            raw, object_pairs_hook=_unique_keys, parse_constant=_no_constant, parse_float=_finite_float
        )
    except DispatchError:
        raise
    except (ValueError, RecursionError) as error:  # json.JSONDecodeError is a ValueError
        raise DispatchError(f"malformed JSON: {error}") from None


def _nesting(text: str) -> int:
    """The deepest `[`/`{` nesting outside JSON strings (exact for valid JSON, a cheap guess otherwise)."""
    depth = deepest = 0
    in_string = escaped = False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]}":
            depth -= 1
    return deepest


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """Build a JSON object, refusing a key that appears twice (json would silently keep the last)."""
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise DispatchError(f"duplicate key: {key!r}")
        result[key] = value
    return result


def _no_constant(name: str) -> Any:
    """Refuse NaN, Infinity and -Infinity, which Python's json accepts but JSON does not."""
    raise DispatchError(f"not a JSON number: {name}")


def _finite_float(text: str) -> float:
    """Parse a JSON number, refusing one that overflows to infinity (such as 1e999)."""
    value = float(text)
    if not math.isfinite(value):
        raise DispatchError(f"number out of range: {text[:20]}")
    return value
