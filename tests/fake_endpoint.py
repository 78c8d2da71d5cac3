"""A stand-in for `post_json` in the loops' property tests: no server, every request recorded."""

from __future__ import annotations

import copy
from typing import Any


class FakeEndpoint:
    """post_json's stand-in: records a copy of each request, then gives the next answer (the last one again)."""

    def __init__(self, answers: list[Any]) -> None:
        self.answers: list[Any] = answers
        self.sent: list[tuple[str, dict[str, Any]]] = []

    def __call__(self, base: str, path: str, body: dict[str, Any], *args: Any, **kwargs: Any) -> Any:
        self.sent.append((path, copy.deepcopy(body)))
        return copy.deepcopy(self.answers[min(len(self.sent), len(self.answers)) - 1])
