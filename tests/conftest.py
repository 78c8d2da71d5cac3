"""Shared fixtures: a fresh stand-in per test."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from course_lib.standin import StandIn


@pytest.fixture
def server() -> Iterator[StandIn]:
    with StandIn() as stand_in:
        yield stand_in
