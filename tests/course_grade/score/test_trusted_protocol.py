"""The pipe between the grader and the learner's process: limits, deadlines, and a peer that misbehaves."""

from __future__ import annotations

import math
import os
import shutil
import subprocess
import sys
import time
from collections import OrderedDict
from pathlib import Path
from typing import Any

import pytest

from course_grade.score.trusted.pipe import protocol, relay
from course_grade.score.trusted.pipe.codec import Opaque, decode, encode
from course_grade.score.trusted.pipe.rpc import Endpoint, LearnerError, PeerFailure, Remote
from course_grade.score.trusted.session import LearnerProcess
from course_lib.errors import EnvelopeError
from course_lib.standin import StandIn
from tests.support.trusted_fakes import NoRefs

HELD_FOR_TWO_SECONDS = (
    "import os, signal, subprocess\n"
    "subprocess.Popen(['sh', '-c', f'sleep 2; kill -CONT {os.getpid()}'], start_new_session=True)\n"
    "os.kill(os.getpid(), signal.SIGSTOP)"
)


def round_trip(value: object, strict: bool = False) -> object:
    return decode(encode(value, NoRefs())[0], NoRefs(), strict)[0]


def test_an_oversized_message_is_refused_before_it_is_read() -> None:
    read_fd, write_fd = os.pipe()
    os.write(write_fd, protocol.HEADER.pack(protocol.MAX_MESSAGE_BYTES + 1))
    with pytest.raises(protocol.ProtocolError, match="over the"):
        protocol.receive(read_fd, time.monotonic() + 5)


def test_a_message_too_large_to_send_is_refused_before_writing() -> None:
    read_fd, write_fd = os.pipe()
    with pytest.raises(protocol.ProtocolError, match="over the 10-byte limit"):
        protocol.send(write_fd, "x" * 20, limit=10)


def test_garbage_on_the_pipe_is_a_protocol_error() -> None:
    read_fd, write_fd = os.pipe()
    os.write(write_fd, protocol.HEADER.pack(3) + b"{x}")
    with pytest.raises(protocol.ProtocolError, match="not JSON"):
        protocol.receive(read_fd, time.monotonic() + 5)


def test_a_silent_peer_meets_the_deadline() -> None:
    read_fd, _write_fd = os.pipe()
    with pytest.raises(protocol.ProtocolError, match="deadline"):
        protocol.receive(read_fd, time.monotonic() + 0.2)


def test_values_keep_their_types_cycles_and_depth() -> None:
    looped: dict[str, object] = {}
    looped["self"] = looped
    deep: list[object] = []
    for _ in range(100_000):
        deep = [deep]
    value = {
        "t": (1, 2.5),
        "s": {1},
        "b": b"\xff",
        "n": math.inf,
        "o": OrderedDict(a=1),
        "loop": looped,
        "d": deep,
    }
    back = round_trip(value)
    assert isinstance(back, dict) and type(back["o"]) is OrderedDict and back["t"] == (1, 2.5)
    assert back["loop"]["self"] is back["loop"] and back["b"] == b"\xff" and back["n"] == math.inf


def test_the_strict_side_keeps_only_known_classes() -> None:
    class Tagged(str):
        pass

    back = round_trip({"t": Tagged("hi"), "o": object()}, strict=True)
    assert isinstance(back, dict) and type(back["t"]) is str and isinstance(back["o"], Opaque)


def loaded(
    process: LearnerProcess, cells: list[str], names: list[str], relay: list[int] | None = None
) -> Any:
    """Start the process with these graded names, run the cells, and return the names it then holds."""
    process.start(names, [], relay or [])
    return process.load(cells, 30).names


def test_a_learner_function_is_called_across_the_pipe(tmp_path: Path) -> None:
    with LearnerProcess(tmp_path) as process:
        double = loaded(process, ["def double(x):\n    return [x, x]"], ["double"])["double"]
        assert double((1,)) == [(1,), (1,)]


def test_a_learner_exception_of_a_known_class_is_rebuilt(tmp_path: Path) -> None:
    source = "from course_lib.errors import EnvelopeError\ndef f():\n    raise EnvelopeError('no id')"
    with LearnerProcess(tmp_path) as process:
        f = loaded(process, [source], ["f"])["f"]
        with pytest.raises(EnvelopeError, match="no id"):
            f()  # type: ignore[operator]


def test_a_learner_exception_of_its_own_class_comes_back_as_its_nearest_known_base(tmp_path: Path) -> None:
    source = "class Mine(KeyError):\n    pass\ndef f():\n    raise Mine('x')"
    with LearnerProcess(tmp_path) as process:
        f = loaded(process, [source], ["f"])["f"]
        with pytest.raises(KeyError) as caught:
            f()  # type: ignore[operator]
        assert type(caught.value) is KeyError


def test_a_learner_exception_outside_the_allow_list_is_a_learner_error(tmp_path: Path) -> None:
    with LearnerProcess(tmp_path) as process:
        f = loaded(process, ["class Oops(BaseException):\n    pass\ndef f():\n    raise Oops(2)"], ["f"])["f"]
        with pytest.raises(LearnerError, match="Oops"):
            f()  # type: ignore[operator]


def test_a_learners_system_exit_is_rebuilt_as_itself_and_ends_only_the_call(tmp_path: Path) -> None:
    with LearnerProcess(tmp_path) as process:
        f = loaded(process, ["def f():\n    raise SystemExit(2)"], ["f"])["f"]
        with pytest.raises(SystemExit):
            f()  # type: ignore[operator]
        assert process.alive


def test_a_learner_that_hangs_is_a_peer_failure_at_the_deadline(tmp_path: Path) -> None:
    with LearnerProcess(tmp_path, call_seconds=0.5) as process:
        f = loaded(process, ["def f():\n    while True:\n        pass"], ["f"])["f"]
        with pytest.raises(PeerFailure, match="deadline"):
            f()  # type: ignore[operator]
        assert not process.alive


def test_a_learner_that_dies_is_a_peer_failure(tmp_path: Path) -> None:
    with LearnerProcess(tmp_path) as process:
        f = loaded(process, ["import os\ndef f():\n    os._exit(3)"], ["f"])["f"]
        with pytest.raises(PeerFailure, match="closed"):
            f()  # type: ignore[operator]


def test_a_learner_printing_garbage_on_the_pipe_is_a_peer_failure(tmp_path: Path) -> None:
    source = (
        "import os\ndef f():\n    for fd in range(3, 20):\n"
        "        try:\n            os.write(fd, b'garbage!')\n        except OSError:\n            pass"
    )
    with LearnerProcess(tmp_path) as process:
        f = loaded(process, [source], ["f"])["f"]
        with pytest.raises(PeerFailure):
            f()  # type: ignore[operator]


def test_what_the_learner_prints_never_reaches_the_pipe(tmp_path: Path) -> None:
    source = "import sys\ndef f():\n    print('noise')\n    sys.__stdout__.write('more')\n    return 1"
    with LearnerProcess(tmp_path) as process:
        assert loaded(process, [source], ["f"])["f"]() == 1  # type: ignore[operator]


def test_a_callback_reaches_the_trusted_function_and_its_mutations_come_back(tmp_path: Path) -> None:
    seen: list[object] = []
    with LearnerProcess(tmp_path) as process:
        f = loaded(process, ["def f(fn, box):\n    box.append(fn(2))\n    return box"], ["f"])["f"]
        box: list[object] = []
        assert f(lambda x: seen.append(x) or x * 10, box) is box  # type: ignore[operator]
        assert box == [20] and seen == [2]


def test_a_remote_function_is_not_a_python_function() -> None:
    endpoint = Endpoint(-1, -1, strict=True)
    assert not callable(getattr(Remote(endpoint, 1), "__code__", None)) and sys.executable


def network_namespaces() -> bool:
    """True where `unshare --net` works (as root on Linux)."""
    return (
        shutil.which("unshare") is not None
        and subprocess.run(["unshare", "--net", "true"], capture_output=True, check=False).returncode == 0
    )


def private_network(argv: list[str]) -> list[str]:
    """The learner in a network namespace of its own, loopback up (as the sandbox runs it)."""
    return ["unshare", "--net", "--", "sh", "-c", 'ip link set lo up && exec "$@"', "sh", *argv]


GET_TEXT = (
    "import json, urllib.request\ndef ask(url):\n"
    "    body = json.dumps({'model': 'm', 'messages': [{'role': 'user', 'content': 'hi'}]}).encode()\n"
    "    headers = {'Content-Type': 'application/json'}\n"
    "    request = urllib.request.Request(url + '/chat/completions', data=body, headers=headers)\n"
    "    return json.load(urllib.request.urlopen(request, timeout=10))['choices'][0]['message']['content']\n"
)


@pytest.mark.skipif(not network_namespaces(), reason="this kernel gives no network namespaces")
def test_the_relay_reaches_the_trusted_stand_in_from_a_private_network(tmp_path: Path) -> None:
    with StandIn([("text", "hello")]) as server, LearnerProcess(tmp_path, private_network) as process:
        ask = loaded(process, [GET_TEXT], ["ask"], [server.port])["ask"]
        assert ask(server.base) == "hello"  # type: ignore[operator]


@pytest.mark.skipif(not network_namespaces(), reason="this kernel gives no network namespaces")
def test_without_the_relay_a_private_network_cannot_reach_the_trusted_side(tmp_path: Path) -> None:
    with StandIn([("text", "hello")]) as server, LearnerProcess(tmp_path, private_network) as process:
        ask = loaded(process, [GET_TEXT], ["ask"], [])["ask"]
        with pytest.raises(OSError):
            ask(server.base)  # type: ignore[operator]


def test_the_relay_refuses_ports_other_than_the_stand_ins() -> None:
    reply = relay.answer({"port": 22, "method": "GET", "path": "/", "headers": [], "body": ""}, [8000], 1.0)
    assert reply["status"] == 502


def test_a_cell_that_runs_forever_is_interrupted_and_the_next_cell_still_runs(tmp_path: Path) -> None:
    with LearnerProcess(tmp_path) as process:
        process.start(["f"], [])
        names = process.load(["while True:\n    pass", "def f():\n    return 1"], 0.5).names
        assert names["f"]() == 1  # type: ignore[operator]


def test_the_strict_side_imports_no_module_the_learner_names() -> None:
    wire = {"v": {"n": 0}, "n": [{"k": "obj", "path": "course_lib.desk.__main__.Anything", "fields": {}}]}
    value, _ = decode(wire, NoRefs(), strict=True)
    assert isinstance(value, Opaque) and "course_lib.desk.__main__" not in sys.modules


def test_a_cell_that_sleeps_is_interrupted_at_the_wall_clock_cap(tmp_path: Path) -> None:
    with LearnerProcess(tmp_path) as process:
        process.start(["f"], [])
        names = process.load(["import time\ntime.sleep(600)", "def f():\n    return 1"], 0.5).names
        assert names["f"]() == 1  # type: ignore[operator]


def test_a_cell_starved_of_cpu_time_is_not_interrupted_at_its_limit(tmp_path: Path) -> None:
    """Held stopped for 2 s, past its 1.5 s limit (its wall-clock cap is 4.5 s), as a loaded machine would starve it."""
    held = HELD_FOR_TWO_SECONDS + "\nfinished = True"
    with LearnerProcess(tmp_path) as process:
        process.start(["finished"], [])
        assert process.load([held], 1.5).names == {"finished": True}
