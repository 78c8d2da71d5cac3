"""Resuming (a submission's mark, recording that Ctrl-C cannot cut in half) and the small pieces of the cluster."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

from course_grade.course import REPOSITORY_COURSE, Course, CourseError
from course_grade.intake.files import fingerprint
from course_grade.intake.resume import (
    course_version,
    is_marked,
    left_mark,
    submission_mark,
    uninterrupted,
    write_mark,
)
from course_grade.run.cluster.engine import Cluster
from course_grade.run.cluster.payload import FOLDER_LINK, LINK, Payload, submitted_files, unpack_payload


def test_ctrl_c_during_recording_is_raised_once_the_block_is_done() -> None:
    done = []
    with pytest.raises(KeyboardInterrupt), uninterrupted():
        os.kill(os.getpid(), signal.SIGINT)
        done.append("recorded")
    assert done == ["recorded"]


def test_the_mark_changes_with_the_submission_and_with_the_course() -> None:
    course = Course.open(REPOSITORY_COURSE)
    version = course_version(course, "01_envelope", {"timeout": None})
    mark = submission_mark({"01_envelope.ipynb": "a"}, version)
    assert mark == submission_mark({"01_envelope.ipynb": "a"}, version)
    assert mark != submission_mark({"01_envelope.ipynb": "b"}, version)
    assert mark != submission_mark(
        {"01_envelope.ipynb": "a"}, course_version(course, "01_envelope", {"timeout": 5})
    )


def test_a_mark_is_read_back_only_as_written(tmp_path: Path) -> None:
    path = tmp_path / "ann" / "01.graded"
    assert not is_marked(path, "m", "left")
    write_mark(path, "m", "left")
    assert is_marked(path, "m", "left")
    assert not is_marked(path, "n", "left") and not is_marked(path, "m", "other")


def test_what_a_recording_left_changes_with_the_autograded_files_and_the_automatic_scores() -> None:
    files, scores = {"01.ipynb": "a"}, [("01", "test_a", 2.0)]
    left = left_mark(files, scores)
    assert left == left_mark(dict(files), list(scores))
    assert left != left_mark({"01.ipynb": "b"}, scores)
    assert left != left_mark(files, [("01", "test_a", 0.0)])


def test_a_bundle_is_laid_out_with_the_fingerprint_it_was_taken_with(tmp_path: Path) -> None:
    """Links travel as links, so the worker notes them and the submission's check still holds."""
    folder = tmp_path / "submitted"
    (folder / "sub").mkdir(parents=True)
    (folder / "a.ipynb").write_text("{}")
    (folder / "sub" / "b.txt").write_text("b")
    (folder / "link").symlink_to("/etc/passwd")
    (folder / "folder-link").symlink_to(tmp_path, target_is_directory=True)
    files = submitted_files(folder)
    assert files["link"] == LINK and files["folder-link"] == FOLDER_LINK
    course = unpack_payload(
        Payload({}, files), Course.open(REPOSITORY_COURSE), tmp_path / "copy", "ann", "01_envelope"
    )
    assert fingerprint(course.folder("submitted", "ann", "01_envelope")) == fingerprint(folder)


def test_a_cluster_address_that_is_not_one_is_a_pipeline_error() -> None:
    with pytest.raises(CourseError, match="cannot reach the Dask scheduler at no-port-here"):
        Cluster("no-port-here", 1, 10).__enter__()
