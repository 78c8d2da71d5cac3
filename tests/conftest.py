"""Shared fixtures: a fresh stand-in per test, a forked-cells server per process, a browser page per test;
and a guard that xdist's test groups really group."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from course_lib.standin import StandIn
from tests.support.forked_cells import ForkedCells

if TYPE_CHECKING:
    from tests.support.browser import Browser


@pytest.fixture
def server() -> Iterator[StandIn]:
    with StandIn() as stand_in:
        yield stand_in


@pytest.fixture(scope="session")
def forked() -> Iterator[ForkedCells]:
    """One forked-cells server (tests/support/forked_cells.py) per test process."""
    runner = ForkedCells()
    yield runner
    runner.close()


@pytest.fixture
def browser(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Browser]:
    """A page in Debian's Chromium, its console errors kept, a screenshot per step (tests/support/browser.py)."""
    # Playwright is imported by browser tests only
    from tests.support.browser import artifacts_folder, open_browser

    with open_browser(artifacts_folder(request.node.nodeid), tmp_path / "chromium-profile") as opened:
        yield opened
        opened.assert_no_errors(new_only=True)  # errors logged after the test's own last check


UNGROUPED = pytest.StashKey[str]()


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Under `--dist loadgroup`, note each grouped test that pytest-xdist could not tag with its group.

    The tag (`@group` at the end of the node id) is all the scheduler looks at: without it the tests of a
    group go to any worker, and each worker sets up the group's module fixtures (a graded class, minutes)
    again. pytest 9.2 with pytest-xdist 3.8 loses the tag silently.
    """
    if not config.getoption("loadgroup", default=False):
        return
    for item in items:
        marks = item.iter_markers("xdist_group")
        groups = sorted(
            {str(mark.args[0] if mark.args else mark.kwargs.get("name", "default")) for mark in marks}
        )
        if groups and not item.nodeid.endswith("@" + "_".join(groups)):
            item.stash[UNGROUPED] = (
                f"pytest-xdist could not tag this test with its xdist_group {groups}: this pytest and "
                "pytest-xdist do not work together (see their pins in pyproject.toml)"
            )


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    """Fail an untagged grouped test before its fixtures are set up, saying why."""
    if UNGROUPED in item.stash:
        pytest.fail(item.stash[UNGROUPED], pytrace=False)
