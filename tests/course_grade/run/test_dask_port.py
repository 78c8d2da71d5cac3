"""course-grade never warns about a port it did not ask for: Dask's 8787, held by another Dask on the machine."""

from __future__ import annotations

import contextlib
import socket
import time
import warnings
from collections.abc import Iterator

import pytest

from course_grade.run.cluster.engine import Cluster


@contextlib.contextmanager
def _port_8787_taken() -> Iterator[None]:
    """Hold 127.0.0.1:8787 as another Dask's scheduler would (it may be held already: then nothing to do)."""
    holder = socket.socket()
    try:
        holder.bind(("127.0.0.1", 8787))
        holder.listen()
    except OSError:
        pass  # another process holds it: just as good
    try:
        yield
    finally:
        holder.close()


@pytest.mark.timeout(120)
def test_the_local_cluster_warns_about_no_port_when_8787_is_taken() -> None:
    with _port_8787_taken(), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with Cluster("local", 1, time.monotonic() + 60) as cluster:
            assert cluster.dashboard is None
            served = cluster.client.scheduler_info().get("services", {})
    said = [str(warning.message) for warning in caught]
    assert not [message for message in said if "already in use" in message], said
    assert served.get("dashboard") != 8787
