"""Notebook 07: the taint rule: a write carrying a value that came from tool output, not from the user.

An injection can only steer a write by putting values in front of the model: an address, an order id,
a note. `Taint` remembers the values each tool result contained (every string of at least `MIN_VALUE`
characters, and the emails, links, ids and quoted phrases inside longer text) and reports which argument
strings of a proposed call carry one that the user's own request does not contain. The harness then
asks a human even when the policy says auto. Numbers are not tracked: amounts are bounded by the
business rules and the refund limit instead. The rule is deliberately coarse; it only ever adds a question.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

__all__ = ["MIN_VALUE", "Taint"]

MIN_VALUE = 4
"""Shorter strings ("ok", "C-1") are too common to mean anything."""

_INSIDE = re.compile(
    r"[^\s@\"'<>(){}\[\],;]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}"  # emails
    r"|https?://[^\s\"'<>]+"  # links
    r"|\b[A-Z]{1,3}-\d{3,}\b"  # ids such as A-1002 or T-5
    r"|\"([^\"\\]{4,80})\"|'([^'\\]{4,80})'"  # quoted phrases
)


def _strings(value: Any) -> Iterator[str]:
    """Every string inside a JSON value (keys are names, not values, and are skipped)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


@dataclass
class Taint:
    """Values seen in tool output during one run, measured against the user's request."""

    user_text: str
    values: set[str] = field(default_factory=set)

    def observe(self, tool_output: str) -> None:
        """Remember the values in one tool result (a JSON string, or plain text)."""
        try:
            parsed: Any = json.loads(tool_output)
        except (ValueError, RecursionError):
            parsed = tool_output
        for text in _strings(parsed):
            if len(text) >= MIN_VALUE:
                self.values.add(text)
            for match in _INSIDE.finditer(text):
                piece = match.group(1) or match.group(2) or match.group(0)
                if len(piece) >= MIN_VALUE:
                    self.values.add(piece)

    def tainted(self, arguments: dict[str, Any]) -> list[str]:
        """The tool-output values that the arguments carry and the user's request does not, sorted."""
        user = self.user_text.casefold()
        carried = {
            value
            for text in _strings(arguments)
            for value in self.values
            if value.casefold() in text.casefold() and value.casefold() not in user
        }
        return sorted(carried)
