"""Progress a person can follow while a class is graded: a bar on a terminal, plain lines elsewhere.

On a terminal, a tqdm bar shows graded/total, the rate, the time left and the failures so far, with the
Dask dashboard's address above it when the cluster has one; each graded submission's line is printed
above the bar. When stdout is not a terminal (a log file, CI, a test), only those lines are printed, as
they always were.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from types import TracebackType

from tqdm import tqdm  # type: ignore[import-untyped]

from course_grade.untrusted import printable_lines


class Progress:
    """Report the submissions of one autograde step as they are recorded; use it as a context manager."""

    def __init__(
        self, total: int, out: Callable[[str], None], terminal: bool, dashboard: str | None = None
    ) -> None:
        self.out = out
        self.failures = 0
        self._bar: tqdm | None = None
        if terminal and total:
            self._bar = tqdm(
                total=total, unit="sub", file=sys.stdout, dynamic_ncols=True, smoothing=0.05,
                desc="graded", postfix={"failed": 0},
            )  # fmt: skip
            if dashboard:
                self._bar.write(f"Dask dashboard: {dashboard}")

    def __enter__(self) -> Progress:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self._bar is not None:
            self._bar.close()

    def line(self, text: str) -> None:
        """Print a line (above the bar when there is one), its control characters escaped."""
        text = printable_lines(text)
        if self._bar is not None:
            self._bar.write(text)
        else:
            self.out(text)

    def graded(self, text: str, failed: bool) -> None:
        """One more submission recorded: its line, and the bar moved on."""
        self.line(text)
        self.failures += failed
        if self._bar is not None:
            self._bar.set_postfix({"failed": self.failures}, refresh=False)
            self._bar.update(1)
