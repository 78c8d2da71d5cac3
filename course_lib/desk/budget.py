"""Notebook 07, Part C: the budgets that bound a run: model requests, wall-clock seconds, identical repeated calls.

The harness asks before every model request (`next_request`) and before every tool call (`out_of_time`,
`repeat`); each answer is either None (go on) or the status that ends the run. Every model request gets
at most `remaining()` seconds, so a slow model cannot stretch the run past its wall-clock budget.
The time comes from an injectable clock: `time.monotonic` for a real run, a `FakeClock`
(`course_lib.desk.clock`) in tests and in the pack, where a slow model advances the clock instead of
sleeping, so no outcome depends on machine load.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Budget", "canonical"]


def canonical(name: str, arguments: Any) -> str:
    """One text per call: the name, then the arguments as JSON with sorted keys and 1.0 written as 1."""
    try:
        return name + " " + json.dumps(_whole(arguments), sort_keys=True, allow_nan=False)
    except (TypeError, ValueError, RecursionError):
        return name + " " + repr(arguments)


def _whole(value: Any) -> Any:
    """The same JSON value with every integral float as an int (JSON has one number type)."""
    if isinstance(value, dict):
        return {key: _whole(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_whole(item) for item in value]
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


@dataclass
class Budget:
    """What one run may still spend: model requests, seconds, and identical calls."""

    max_steps: int = 8
    """Model requests allowed in the run."""
    max_seconds: float = 30.0
    """Wall-clock seconds from the start of the run."""
    max_repeats: int = 3
    """How many times one identical call (same name, same canonical arguments) may be proposed."""
    clock: Callable[[], float] = time.monotonic
    """Where the time comes from (a test can pass a fake clock)."""
    steps: int = 0
    """Model requests taken so far."""
    started: float = field(default=-1.0)
    seen: Counter[str] = field(default_factory=Counter)

    def __post_init__(self) -> None:
        if self.started < 0:
            self.started = self.clock()

    def elapsed(self) -> float:
        """Seconds since the run started."""
        return self.clock() - self.started

    def remaining(self) -> float:
        """Seconds left (never negative): the most a model request or an approver may take."""
        return max(0.0, self.max_seconds - self.elapsed())

    def out_of_time(self) -> bool:
        """True once the wall-clock budget is spent."""
        return self.remaining() <= 0.0

    def steps_left(self) -> int:
        """Model requests still allowed."""
        return max(0, self.max_steps - self.steps)

    def next_request(self) -> str | None:
        """Take one model request; None if it fits, else "step_budget" or "time_budget"."""
        if self.steps >= self.max_steps:
            return "step_budget"
        if self.out_of_time():
            return "time_budget"
        self.steps += 1
        return None

    def repeat(self, name: str, arguments: Any) -> bool:
        """Count one proposed call; True if it is one identical call more than `max_repeats`."""
        key = canonical(name, arguments)
        self.seen[key] += 1
        return self.seen[key] > self.max_repeats
