"""Notebook 01: the provider-neutral envelope a model's turn is turned into before anything runs.

An envelope is either a final answer, `{"kind": "final", "text": str}`, or a proposed tool call,
`{"kind": "call", "id": str, "name": str, "arguments": dict}`. `parse_envelope` checks that shape
exactly and returns an independent copy; it grants no permission and runs nothing.
"""

from __future__ import annotations

import math
import re
from typing import Any

from course_lib.errors import EnvelopeError

__all__ = ["MAX_ARGUMENT_DEPTH", "NAME_PATTERN", "EnvelopeError", "parse_envelope"]

NAME_PATTERN = re.compile(r"[a-zA-Z0-9_-]{1,64}")
"""A tool name, matched with `fullmatch` (so a trailing newline cannot sneak past a `$`)."""

MAX_ARGUMENT_DEPTH = 64
"""How many containers deep `arguments` may nest (the arguments object itself is level 1)."""

_FIELDS = {"final": frozenset({"kind", "text"}), "call": frozenset({"kind", "id", "name", "arguments"})}


def parse_envelope(raw: object) -> dict[str, Any]:
    """Check `raw` against the envelope contract and return a deep, independent copy of it."""
    if type(raw) is not dict:
        raise EnvelopeError(f"envelope: expected an object (dict), got {type(raw).__name__}")
    for key in raw:
        if type(key) is not str:
            raise EnvelopeError(f"envelope: field names must be strings, got {type(key).__name__}")
    if "kind" not in raw:
        raise EnvelopeError("kind: missing")
    kind = raw["kind"]
    if type(kind) is not str:
        raise EnvelopeError(f"kind: expected 'final' or 'call', got {type(kind).__name__}")
    if kind not in _FIELDS:
        raise EnvelopeError(f"kind: expected 'final' or 'call', got {_show(kind)}")
    missing, extra = _FIELDS[kind] - set(raw), set(raw) - _FIELDS[kind]
    if missing:
        raise EnvelopeError(f"missing field(s) for kind {kind!r}: {', '.join(sorted(missing))}")
    if extra:
        raise EnvelopeError(f"unexpected field(s) for kind {kind!r}: {', '.join(map(repr, sorted(extra)))}")

    if kind == "final":
        return {"kind": "final", "text": _string(raw, "text")}
    call_id, name, arguments = _string(raw, "id"), _string(raw, "name"), raw["arguments"]
    if not call_id.strip():
        raise EnvelopeError("id: must not be blank")
    if not NAME_PATTERN.fullmatch(name):
        raise EnvelopeError(f"name: must match [a-zA-Z0-9_-]{{1,64}}, got {_show(name)}")
    if type(arguments) is not dict:
        raise EnvelopeError(f"arguments: expected an object (dict), got {type(arguments).__name__}")
    return {"kind": "call", "id": call_id, "name": name, "arguments": _copy_json(arguments, "arguments", 1)}


def _string(raw: dict[str, Any], field: str) -> str:
    """Return `raw[field]` if it is exactly a str (not a bool, not a str subclass)."""
    value = raw[field]
    if type(value) is not str:
        raise EnvelopeError(f"{field}: expected a string, got {type(value).__name__}")
    return value


def _copy_json(value: object, path: str, depth: int) -> Any:
    """Copy a JSON value by hand, rejecting anything JSON cannot hold; `path` names it in errors."""
    if type(value) is dict:
        if depth > MAX_ARGUMENT_DEPTH:
            raise EnvelopeError(f"arguments nested deeper than {MAX_ARGUMENT_DEPTH} levels")
        copy: dict[str, Any] = {}
        for key, item in value.items():
            if type(key) is not str:
                raise EnvelopeError(f"{path}: keys must be strings, got {type(key).__name__}")
            copy[key] = _copy_json(item, f"{path}.{key}", depth + 1)
        return copy
    if type(value) is list:
        if depth > MAX_ARGUMENT_DEPTH:
            raise EnvelopeError(f"arguments nested deeper than {MAX_ARGUMENT_DEPTH} levels")
        return [_copy_json(item, f"{path}[{index}]", depth + 1) for index, item in enumerate(value)]
    if type(value) is float and not math.isfinite(value):
        raise EnvelopeError(f"{path}: {value} is not a JSON number")
    if value is None or type(value) in (str, int, float, bool):
        return value
    raise EnvelopeError(f"{path}: not a JSON value: {type(value).__name__}")


def _show(text: str, limit: int = 40) -> str:
    """The repr of `text`, cut short enough for an error message."""
    return repr(text) if len(text) <= limit else repr(text[:limit]) + "..."
