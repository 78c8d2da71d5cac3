"""Strict JSON for the infrastructure: Python's `json` accepts what JSON does not, and these refuse it.

`json.loads` reads `NaN`, `Infinity` and `-Infinity`, and silently keeps the last of a repeated key. `loads`
refuses the constants always and repeated keys on request, each with an error (a `ValueError`) that names
what it found, so a caller can word the refusal its own way. The keys (notebooks 02 and 05) keep their own
helpers: the learners' edition may leave a key out, and a key stands alone.
"""

from __future__ import annotations

import json
from typing import Any, NoReturn

__all__ = ["JSONConstant", "RepeatedKey", "loads", "refuse_constant", "unique_object"]


class JSONConstant(ValueError):
    """`NaN`, `Infinity` or `-Infinity`: Python's json reads them, JSON has no such number."""

    def __init__(self, constant: str) -> None:
        super().__init__(f"{constant} is not valid JSON")
        self.constant = constant


class RepeatedKey(ValueError):
    """A JSON object naming the same key twice."""

    def __init__(self, key: str) -> None:
        super().__init__(f"repeated key {key!r}")
        self.key = key


def refuse_constant(constant: str) -> NoReturn:
    """`json.loads`'s `parse_constant`: refuse the constant."""
    raise JSONConstant(constant)


def unique_object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """`json.loads`'s `object_pairs_hook`: build the object, refusing a repeated key."""
    obj: dict[str, Any] = {}
    for key, value in pairs:
        if key in obj:
            raise RepeatedKey(key)
        obj[key] = value
    return obj


def loads(text: str, *, unique_keys: bool = False) -> Any:
    """`json.loads(text)` refusing NaN and the infinities (and, with `unique_keys`, a repeated key).

    Raises `JSONConstant`, `RepeatedKey` or `json.JSONDecodeError` (all `ValueError`s), or `RecursionError`.
    """
    return json.loads(
        text, parse_constant=refuse_constant, object_pairs_hook=unique_object if unique_keys else None
    )
