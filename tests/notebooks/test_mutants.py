"""Mutation testing of the instructor's solutions (grading/mutants.py), on a sample small enough for every run.

The full run, `python3 course.py mutants` (tens of minutes), scores every graded part; here a few mutants of one
part run as the script runs them, and grading/equivalent_mutants.toml is checked against the solutions as they
are now: every listed mutant still exists (an edited solution line renames its mutants) and still survives.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from grading.mutants import ROOT, equivalents, mutants, parts, sample

ASSIGNMENT, PART = "02_dispatcher", "dispatch_with"
"""A part whose mutants run in about 0.1 s each, with listed equivalents."""


def test_every_listed_equivalent_is_a_mutant_of_the_solution_as_it_is() -> None:
    for assignment, by_part in equivalents().items():
        found = {part.grade_id: part for part in parts(assignment)}
        for grade_id, listed in by_part.items():
            assert grade_id in found, f"{assignment} has no graded part {grade_id!r}"
            ids = {mutant.id for mutant in mutants(found[grade_id])}
            stale = sorted(set(listed) - ids)
            assert not stale, f"{assignment} {grade_id}: no such mutant any more (edit the list): {stale}"
            assert all(reason.strip() for reason in listed.values()), (
                f"{assignment} {grade_id}: a reason is empty"
            )


@pytest.mark.timeout(300)
def test_a_sample_is_killed_and_the_listed_equivalents_survive() -> None:
    part = next(part for part in parts(ASSIGNMENT) if part.grade_id == PART)
    listed = equivalents()[ASSIGNMENT][PART]
    others = [mutant for mutant in mutants(part) if mutant.id not in listed]
    chosen = [mutant.id for mutant in sample(others, 4)] + sorted(listed)[:2]
    command = [sys.executable, "grading/mutants.py", ASSIGNMENT, PART, "--json"]
    for mutant_id in chosen:
        command += ["--mutant", mutant_id]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=280)
    assert done.returncode == 0, done.stdout + done.stderr
    (score,) = [json.loads(line) for line in done.stdout.splitlines()]
    assert score["baseline"] == [], "the instructor's solution fails its own tests"
    assert score["mutants"] == len(chosen)
    assert score["survived"] == [], f"mutants no test kills any more: {score['survived']}"
    assert sorted(score["equivalent"]) == sorted(listed)[:2] and score["stale"] == []
