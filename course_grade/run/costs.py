"""How long each assignment takes to grade, so that the longest jobs start first and no worker idles at the end.

A class graded in arrival order can end with one worker still grading a long notebook while the others
wait. Started longest first, the short jobs fill in at the end. The cost of an assignment is the median
time one of its submissions took in the worker during the last run that graded it, kept in the course's
`grading_notes/.costs.json` (a name no student id can take: ids never start with a dot); an assignment
never graded before is estimated from the size of its source notebooks, scaled by the seconds per byte of
the assignments measured (or by the size alone when none is). The order changes no grade.
"""

from __future__ import annotations

import contextlib
import json
import os
import statistics
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TypeVar

from course_grade.run.jobs import AutogradeJob, AutogradeResult

COSTS = ".costs.json"
"""The file, under the course's grading notes, of each assignment's measured cost."""

Job = TypeVar("Job", bound=AutogradeJob)


def read_costs(path: Path) -> dict[str, float]:
    """assignment -> seconds per submission measured before; empty when the file is missing or unreadable."""
    try:
        found = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(found, dict):
        return {}
    return {
        str(name): float(seconds)
        for name, seconds in found.items()
        if isinstance(seconds, int | float) and seconds > 0
    }


class Timings:
    """The time each submission took in the worker, by assignment, as results come in (no notebook kept)."""

    def __init__(self) -> None:
        self.seconds: dict[str, list[float]] = {}

    def add(self, result: AutogradeResult) -> None:
        """Note one result's time, unless it failed (a failure's time says nothing of the cost)."""
        if result.seconds > 0 and not any(note.kind == "grading-failed" for note in result.notes):
            self.seconds.setdefault(result.grades.assignment, []).append(result.seconds)

    def medians(self) -> dict[str, float]:
        """assignment -> the median seconds of its submissions graded in full."""
        return {assignment: statistics.median(times) for assignment, times in self.seconds.items()}


def save_costs(path: Path, new: Mapping[str, float]) -> None:
    """Keep the costs measured now beside those of assignments this run did not grade (written whole)."""
    if not new:
        return
    costs = {**read_costs(path), **new}
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f"{path.name}.{os.getpid()}")
    with contextlib.suppress(OSError):  # an estimate lost is a slower next run, never a wrong grade
        partial.write_text(json.dumps(costs, indent=1, sort_keys=True), encoding="utf-8")
        partial.replace(path)


def expected(costs: Mapping[str, float], sizes: Mapping[str, int]) -> dict[str, float]:
    """assignment -> expected seconds (or a size-proportional stand-in) for every assignment of `sizes`."""
    rates = [costs[name] / size for name, size in sizes.items() if name in costs and size > 0]
    per_byte = statistics.median(rates) if rates else 1.0
    return {name: costs.get(name, size * per_byte) for name, size in sizes.items()}


def longest_first(jobs: Sequence[Job], cost: Mapping[str, float]) -> list[Job]:
    """The jobs, the most expensive assignment's first (in their order otherwise)."""
    return sorted(jobs, key=lambda job: -cost.get(job.assignment, 0.0))
