"""Notebook 07: a clock that moves only when told to, for budgets measured without sleeping.

The pack gives every run its own `FakeClock`: the harness measures its wall-clock budget on it, and a
scenario's slow model advances it instead of sleeping, so no outcome depends on how busy the machine is.
"""

from __future__ import annotations

import threading

__all__ = ["FakeClock"]


class FakeClock:
    """A clock that moves only when told to: `clock()` reads it, `advance(seconds)` moves it (thread-safe)."""

    def __init__(self, start: float = 1000.0) -> None:
        self._now, self._lock = float(start), threading.Lock()

    def __call__(self) -> float:
        with self._lock:
            return self._now

    def advance(self, seconds: float) -> None:
        """Move the clock forward by `seconds` (never backwards: a negative amount is refused)."""
        if not seconds >= 0:
            raise ValueError(f"a clock cannot go backwards: advance({seconds!r})")
        with self._lock:
            self._now += seconds
