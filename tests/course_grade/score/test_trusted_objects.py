"""Learner classes and instances as remote references, and calls across the pipe from any thread on either side."""

from __future__ import annotations

import dataclasses
import os
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from course_grade.score.trusted.pipe import protocol
from course_grade.score.trusted.pipe.codec import encode
from course_grade.score.trusted.pipe.rpc import IDLE_THREADS, Endpoint, PeerFailure
from course_grade.score.trusted.session import LearnerProcess
from course_grade.score.trusted.static import static_class
from tests.course_grade.score.test_trusted_protocol import loaded

COUNTER = (
    "class Counter:\n    def __init__(self, n):\n        self.n = n\n"
    "    def bump(self, by=1):\n        self.n += by\n        return self\n"
)


def test_a_learner_class_builds_its_instances_in_the_learners_process(tmp_path: Path) -> None:
    with LearnerProcess(tmp_path) as process:
        counter_class = loaded(process, [COUNTER], ["Counter"])["Counter"]
        counter = counter_class(3)
        assert isinstance(counter, counter_class) and counter.bump(2) is counter and counter.n == 5


def test_an_attribute_written_on_a_remote_instance_is_written_in_the_learners_process(tmp_path: Path) -> None:
    with LearnerProcess(tmp_path) as process:
        counter = loaded(process, [COUNTER], ["Counter"])["Counter"](0)
        counter.n = 41
        assert counter.bump().n == 42


def test_a_learner_thread_calls_back_the_trusted_side(tmp_path: Path) -> None:
    source = (
        "import threading\ndef f(fn):\n    out = []\n"
        "    worker = threading.Thread(target=lambda: out.append(fn(2)))\n"
        "    worker.start()\n    worker.join(10)\n    return out"
    )
    with LearnerProcess(tmp_path) as process:
        assert loaded(process, [source], ["f"])["f"](lambda x: x * 10) == [20]


def test_trusted_threads_call_the_learner_at_once_and_each_gets_its_own_answer(tmp_path: Path) -> None:
    with LearnerProcess(tmp_path) as process:
        double = loaded(process, ["def double(x, fn):\n    return fn(x) * 2"], ["double"])["double"]
        together = threading.Barrier(200, timeout=30)  # all 200 calls are open in the learner at once

        def plus_one(y: int) -> int:
            together.wait()
            return y + 1

        with ThreadPoolExecutor(200) as pool:
            answers = list(pool.map(lambda x: double(x, plus_one), range(200)))
        assert answers == [(x + 1) * 2 for x in range(200)]


def test_a_thread_that_served_a_call_serves_later_ones(tmp_path: Path) -> None:
    source = (
        "import threading\nseen = threading.local()\n"
        "def count():\n    seen.n = getattr(seen, 'n', 0) + 1\n    return seen.n"
    )
    with LearnerProcess(tmp_path) as process:
        count = loaded(process, [source], ["count"])["count"]
        with ThreadPoolExecutor(1) as pool:  # not the main thread: each call opens a new conversation
            counts = [pool.submit(count).result() for _ in range(20)]
        # a call may arrive before the thread that answered the last one is back in the pool (it then gets a
        # new thread, which later calls reuse): most calls, not all, find a thread that served before
        assert sum(1 for n in counts if n > 1) >= 10, counts


def test_serving_threads_beyond_the_idle_limit_end_once_they_are_done(tmp_path: Path) -> None:
    source = "import threading, time\ndef wait(fn):\n    fn()\n\ndef threads():\n    return threading.active_count()"
    with LearnerProcess(tmp_path) as process:
        names = loaded(process, [source], ["wait", "threads"])
        together = threading.Barrier(3 * IDLE_THREADS, timeout=30)
        with ThreadPoolExecutor(3 * IDLE_THREADS) as pool:
            list(pool.map(lambda _: names["wait"](together.wait), range(3 * IDLE_THREADS)))
        deadline = time.monotonic() + 10
        while names["threads"]() > IDLE_THREADS + 3 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert names["threads"]() <= IDLE_THREADS + 3  # the idle ones, the main thread, the pipe's reader


def test_a_callback_still_running_when_its_caller_gave_up_does_not_disturb_later_calls(
    tmp_path: Path,
) -> None:
    source = (
        "import threading\ndef ask(fn):\n    worker = threading.Thread(target=fn, daemon=True)\n"
        "    worker.start()\n    worker.join(0.2)\n    return worker.is_alive()"
    )
    release = threading.Event()
    with LearnerProcess(tmp_path) as process:
        ask = loaded(process, [source], ["ask"])["ask"]
        assert ask(lambda: release.wait(10)) is True  # the learner's call returned while its callback waits
        release.set()
        assert ask(lambda: None) is False and process.alive


def test_a_learner_flooding_the_trusted_side_with_threads_is_refused(tmp_path: Path) -> None:
    source = (
        "import threading\ndef f(fn):\n    for _ in range(200):\n"
        "        threading.Thread(target=fn, daemon=True).start()\n    import time; time.sleep(2)"
    )
    release = threading.Event()
    with LearnerProcess(tmp_path) as process:
        f = loaded(process, [source], ["f"])["f"]
        try:
            f(lambda: release.wait(10))
        except PeerFailure as error:
            assert "calls open at once" in str(error)
        else:
            raise AssertionError("200 callbacks open at once were all served")
        finally:
            release.set()


def test_the_source_names_a_class_that_inherits_from_the_library() -> None:
    shadow = static_class("Budget", ["import course_lib.desk as d\nclass Budget(d.Budget):\n    pass"], {})
    assert shadow is not None and shadow.library_bases == (("course_lib.desk", "d.Budget"),)


def test_the_source_gives_a_class_its_methods_compiled_never_run() -> None:
    shadow = static_class("C", ["class C:\n    def m(self):\n        raise SystemExit\n"], {})
    assert (
        shadow is not None and list(shadow.methods) == ["m"] and shadow.methods["m"].__module__ == "__main__"
    )


def test_a_name_last_bound_by_something_other_than_class_has_no_shadow_class() -> None:
    assert static_class("C", ["class C:\n    pass", "C = int"], {}) is None


def test_a_learner_claiming_to_be_the_main_thread_is_served_by_a_thread_of_its_own() -> None:
    to_trusted, from_learner = os.pipe()
    to_learner, from_trusted = os.pipe()
    endpoint = Endpoint(to_trusted, from_trusted, strict=True).start()
    endpoint.exports[1] = lambda: 7
    protocol.send(
        from_learner, {"op": "call", "id": 1, "args": encode([[], {}], endpoint)[0], "c": "x", "m": True}
    )
    reply = protocol.receive(to_learner, time.monotonic() + 10)
    assert reply["r"] and reply["c"] == "x" and endpoint.main_queue.empty()


def test_a_method_calling_super_has_a_shadow_too() -> None:
    source = "class C(dict):\n    def m(self):\n        return super().keys()\n"
    shadow = static_class("C", [source], {})
    assert shadow is not None and shadow.methods["m"].__code__.co_freevars == ("__class__",)


def test_the_learner_cannot_read_an_attribute_of_a_trusted_object() -> None:
    read_fd, write_fd = os.pipe()
    endpoint = Endpoint(read_fd, write_fd, strict=True)
    endpoint.exports[1] = lambda: 7
    wire = encode([[], {}], endpoint)[0]
    with pytest.raises(PeerFailure, match="attribute"):
        endpoint.answer({"op": "call", "id": 1, "args": wire, "attr": "__globals__", "how": "get", "c": "x"})


@dataclasses.dataclass
class Clock:
    """A callable record of course_lib (a fake clock): it must stay on its side, not cross as a copy."""

    calls: int = 0

    def __call__(self) -> int:
        self.calls += 1
        return self.calls


Clock.__module__ = "course_lib.testing"


def test_a_callable_course_record_crosses_as_a_reference(tmp_path: Path) -> None:
    clock = Clock()
    with LearnerProcess(tmp_path) as process:
        twice = loaded(process, ["def twice(clock):\n    return clock(), clock()"], ["twice"])["twice"]
        assert twice(clock) == (1, 2) and clock.calls == 2


def test_a_callback_from_a_learner_thread_may_call_the_learner_again(tmp_path: Path) -> None:
    source = (
        "import threading\ndef g(x):\n    return x + 1\ndef f(fn):\n    out = []\n"
        "    worker = threading.Thread(target=lambda: out.append(fn(2)))\n"
        "    worker.start()\n    worker.join(10)\n    return out"
    )
    with LearnerProcess(tmp_path) as process:
        names = loaded(process, [source], ["f", "g"])
        assert names["f"](lambda x: names["g"](x) * 10) == [30]
