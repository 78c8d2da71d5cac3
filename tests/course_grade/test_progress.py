"""The progress of an autograde step: a bar on a terminal, the plain lines elsewhere."""

from __future__ import annotations

import pytest

from course_grade.progress import Progress


def test_off_a_terminal_only_the_lines_are_printed(capsys: pytest.CaptureFixture[str]) -> None:
    lines: list[str] = []
    with Progress(2, lines.append, terminal=False, dashboard="http://127.0.0.1:8787/status") as progress:
        progress.graded("[1/2] a", failed=False)
        progress.graded("[2/2] b", failed=True)
    assert lines == ["[1/2] a", "[2/2] b"] and capsys.readouterr().out == ""


def test_on_a_terminal_the_bar_counts_graded_and_failed_and_shows_the_dashboard(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with Progress(2, print, terminal=True, dashboard="http://127.0.0.1:8787/status") as progress:
        progress.graded("[1/2] a", failed=True)
        progress.graded("[2/2] b", failed=False)
    out = capsys.readouterr().out
    assert "Dask dashboard: http://127.0.0.1:8787/status" in out and "[2/2] b" in out
    assert "2/2" in out.rsplit("[2/2] b", 1)[1] and "failed=1" in out
