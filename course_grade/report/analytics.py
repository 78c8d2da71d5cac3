"""Per-question statistics of a class: pure functions over the gradebook's rows, no I/O.

For each graded cell (question) over the submissions of its assignment: n, mean, median, sample standard
deviation, the share of full and zero marks, the discrimination (Pearson's correlation of the cell's
score with the rest of the total, the total minus that cell) and the rank by difficulty (1: the lowest
mean share of the cell's points; ties share a rank). A statistic that is undefined is None, shown "n/a":
the SD of fewer than 2 scores, and the discrimination when fewer than 2 submissions or either the cell's
scores or the rest's totals do not vary (SD 0: every learner scored the same, so the cell separates no one).
"""

from __future__ import annotations

import math
import statistics
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from course_grade.report.class_grades import CellScore

BINS = 10
"""Histogram bins: tenths of the assignment's maximum score."""


@dataclass(frozen=True)
class CellStats:
    """The statistics of one graded cell over the submissions of its assignment."""

    assignment: str
    notebook: str
    cell: str
    max_score: float
    n: int
    mean: float
    median: float
    sd: float | None
    full: float
    """Share (0..1) of submissions with the cell's full points."""
    zero: float
    """Share (0..1) of submissions with 0 on the cell."""
    discrimination: float | None
    rank: int = 0
    """1 for the hardest cell of its assignment (lowest mean share of its points)."""


def totals(cells: Iterable[CellScore]) -> dict[tuple[str, str], float]:
    """(assignment, student) -> the sum of the student's cell scores on that assignment (before any penalty)."""
    found: dict[tuple[str, str], float] = defaultdict(float)
    for cell in cells:
        found[(cell.assignment, cell.student)] += cell.score
    return dict(found)


def correlation(xs: Sequence[float], ys: Sequence[float]) -> float | None:
    """Pearson's r of two equally long samples; None when fewer than 2 pairs or either does not vary."""
    if len(xs) != len(ys):
        raise ValueError(f"samples of different lengths: {len(xs)} and {len(ys)}")
    if len(xs) < 2:
        return None
    mean_x, mean_y = math.fsum(xs) / len(xs), math.fsum(ys) / len(ys)
    sxy = math.fsum((x - mean_x) * (y - mean_y) for x, y in zip(xs, ys, strict=True))
    sxx = math.fsum((x - mean_x) ** 2 for x in xs)
    syy = math.fsum((y - mean_y) ** 2 for y in ys)
    if sxx == 0 or syy == 0:
        return None
    return max(-1.0, min(1.0, sxy / math.sqrt(sxx * syy)))


def cell_statistics(cells: Iterable[CellScore]) -> list[CellStats]:
    """The statistics of every graded cell, in the order the cells first appear, ranked within each assignment."""
    cells = list(cells)
    total = totals(cells)
    groups: dict[tuple[str, str, str], list[CellScore]] = defaultdict(list)
    for cell in cells:
        groups[(cell.assignment, cell.notebook, cell.cell)].append(cell)
    found = []
    for (assignment, notebook, name), group in groups.items():
        scores = [cell.score for cell in group]
        most = max(cell.max_score for cell in group)
        rest = [total[(assignment, cell.student)] - cell.score for cell in group]
        found.append(
            CellStats(
                assignment,
                notebook,
                name,
                most,
                len(scores),
                statistics.fmean(scores),
                statistics.median(scores),
                statistics.stdev(scores) if len(scores) > 1 else None,
                sum(1 for score in scores if most > 0 and score >= most) / len(scores),
                sum(1 for score in scores if score <= 0) / len(scores),
                correlation(scores, rest),
            )  # fmt: skip
        )
    return _ranked(found)


def _ranked(found: list[CellStats]) -> list[CellStats]:
    """The cells with their rank by difficulty within their assignment (competition ranking: 1, 2, 2, 4)."""
    ranks: dict[tuple[str, str, str], int] = {}
    for assignment in dict.fromkeys(stats.assignment for stats in found):
        shares = {(s.assignment, s.notebook, s.cell): _share(s) for s in found if s.assignment == assignment}
        for key, share in shares.items():
            ranks[key] = 1 + sum(1 for other in shares.values() if other < share - 1e-12)
    return [
        CellStats(**{**stats.__dict__, "rank": ranks[(stats.assignment, stats.notebook, stats.cell)]})
        for stats in found
    ]


def _share(stats: CellStats) -> float:
    """The mean share of a cell's points the class earned (a cell worth 0 counts as fully earned)."""
    return stats.mean / stats.max_score if stats.max_score else 1.0


def histogram(values: Iterable[float], max_score: float, bins: int = BINS) -> list[tuple[float, float, int]]:
    """(low, high, count) of `bins` equal bins over [0, max_score]; the last includes its top, values are clamped."""
    counts = [0] * bins
    width = max_score / bins if max_score > 0 else 1.0
    for value in values:
        share = min(max(value, 0.0), max_score) / max_score if max_score > 0 else 0.0
        index = math.floor(share * bins + 1e-9)  # 0.3 of 1 point falls in the 0.3-0.4 bin, not 0.2-0.3
        counts[min(index, bins - 1)] += 1
    return [(index * width, (index + 1) * width, count) for index, count in enumerate(counts)]
