"""One core per grading worker (`course_grade.run.cores`): claims, their release, and the pool's workers bound."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from course_grade.course import REPOSITORY_COURSE, Course
from course_grade.run import cores
from course_grade.run.jobs import Settings
from course_grade.run.pool import Pool
from tests.support.pool_jobs import Cores

ALLOWED = sorted(os.sched_getaffinity(0))


def _claim_all(folder: Path) -> list[cores.Claim]:
    claims = []
    while (claim := cores.claim(folder)) is not None:
        claims.append(claim)
        assert len(claims) <= len(ALLOWED), "claimed a core twice"
    return claims


def test_every_core_is_claimed_once_then_none_is_left(tmp_path: Path) -> None:
    claims = _claim_all(tmp_path / "claims")
    assert sorted(claim.core for claim in claims) == ALLOWED
    claims[0].release()
    again = cores.claim(tmp_path / "claims")
    assert again is not None and again.core == claims[0].core
    for claim in [again, *claims]:
        claim.release()
        claim.release()  # a second release does nothing


def test_a_core_is_let_go_when_the_process_holding_it_is_killed(tmp_path: Path) -> None:
    folder = tmp_path / "claims"
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys, time; from course_grade.run import cores; from pathlib import Path\n"
         "held = []\nwhile (c := cores.claim(Path(sys.argv[1]))) is not None: held.append(c)\n"
         "print(len(held), flush=True); time.sleep(60)", str(folder)],
        stdout=subprocess.PIPE, text=True, cwd=Path(__file__).resolve().parents[3],
    )  # fmt: skip
    try:
        assert holder.stdout is not None and int(holder.stdout.readline()) == len(ALLOWED)
        assert cores.claim(folder) is None  # every core is held by the other process
    finally:
        holder.kill()
        holder.wait()
    claims = _claim_all(folder)
    assert len(claims) == len(ALLOWED)
    for claim in claims:
        claim.release()


def test_a_folder_another_could_write_to_or_swap_is_not_used(tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    shared.mkdir(mode=0o777)
    shared.chmod(0o777)
    assert cores.claim(shared) is None
    (tmp_path / "real").mkdir(mode=0o700)
    (tmp_path / "link").symlink_to(tmp_path / "real")
    assert cores.claim(tmp_path / "link") is None


def test_where_no_process_can_be_bound_nothing_is_claimed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(cores, "CAN_BIND", False)
    assert cores.claim(tmp_path / "claims") is None
    cores.bind(ALLOWED[0])  # and binding leaves this process as it was
    assert sorted(os.sched_getaffinity(0)) == ALLOWED


def test_the_pools_workers_and_what_they_start_run_each_on_a_core_of_its_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two workers, two jobs at once: each worker is bound to a core of its own, and a process it starts
    inherits the binding (with one core only, the second worker runs unbound)."""
    monkeypatch.setattr(cores, "claims_folder", lambda: tmp_path / "claims")  # no other test's workers
    with Pool(2, 60, tmp_path) as pool:
        answers = list(pool.run([Cores(), Cores()], Settings(Course.open(REPOSITORY_COURSE), tmp_path)))  # type: ignore[list-item]
    assert all(own == child for own, child in answers)  # type: ignore[misc]
    bound = sorted(own for own, _ in answers if len(own) == 1)  # type: ignore[misc]
    assert len(bound) == len(set(bound)) == min(2, len(ALLOWED))
    assert all(own == frozenset(ALLOWED) for own, _ in answers if len(own) > 1)  # type: ignore[misc]
    claims = _claim_all(tmp_path / "claims")  # the pool let its cores go when it closed
    assert len(claims) == len(ALLOWED)
    for claim in claims:
        claim.release()
