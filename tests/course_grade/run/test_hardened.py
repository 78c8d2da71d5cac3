"""course_grade.run.hardened's GuardedExecute on its own: kernel start-ups tried again, cell timeouts in CPU time."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from nbformat import NotebookNode
from nbformat.v4 import new_code_cell, new_notebook

from course_grade.run.hardened import GuardedExecute

FLAKY_KERNEL = """
import os, sys
counter, arguments = sys.argv[1], sys.argv[2:]
with open(counter, "a") as starts:
    starts.write("start\\n")
with open(counter) as starts:
    started = len(starts.readlines())
if started <= int(os.environ["COURSE_KERNEL_FAILS"]):
    os._exit(1)  # as a kernel does whose port was taken while it started
from ipykernel.kernelapp import launch_new_instance
sys.argv = [sys.argv[0], *arguments]
launch_new_instance()
"""


@pytest.fixture
def flaky_kernel(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A kernelspec "flaky" whose first COURSE_KERNEL_FAILS start-ups die; returns the file counting start-ups.

    The count is a COURSE_ variable: a grading kernel sees only an allow-list of the grader's environment."""
    script, counter = tmp_path / "flaky_kernel.py", tmp_path / "starts.txt"
    script.write_text(FLAKY_KERNEL)
    spec = tmp_path / "jupyter" / "kernels" / "flaky"
    spec.mkdir(parents=True)
    argv = [sys.executable, str(script), str(counter), "-f", "{connection_file}"]
    (spec / "kernel.json").write_text(
        json.dumps({"argv": argv, "display_name": "flaky", "language": "python"})
    )
    monkeypatch.setenv("JUPYTER_PATH", str(tmp_path / "jupyter"))
    return counter


def _notebook() -> NotebookNode:
    notebook = new_notebook(cells=[new_code_cell("print(6 * 7)")])
    notebook.metadata["kernelspec"] = {"name": "flaky", "display_name": "flaky", "language": "python"}
    return notebook


def _starts(counter: Path) -> int:
    return len(counter.read_text().splitlines())


def test_a_kernel_that_dies_while_starting_is_started_again(
    flaky_kernel: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COURSE_KERNEL_FAILS", "2")
    executed, _ = GuardedExecute(timeout=60).preprocess(_notebook(), {})
    assert executed.cells[0].outputs[0].text == "42\n"
    assert _starts(flaky_kernel) == 3


def test_a_kernel_that_never_starts_fails_after_the_attempts_allowed(
    flaky_kernel: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COURSE_KERNEL_FAILS", "99")
    with pytest.raises(RuntimeError, match="Kernel died"):
        GuardedExecute(timeout=60, startup_attempts=2).preprocess(_notebook(), {})
    assert _starts(flaky_kernel) == 2


HELD = (
    "import os, signal, subprocess\n"
    "subprocess.Popen(['sh', '-c', f'sleep 2; kill -CONT {os.getpid()}'], start_new_session=True)\n"
    "os.kill(os.getpid(), signal.SIGSTOP)\n"
    "print('finished')"
)
"""A cell held stopped for 2 s, as a loaded machine would starve its kernel, then finishing."""


def _run(source: str, wall_factor: float) -> tuple[NotebookNode, GuardedExecute]:
    executor = GuardedExecute(timeout=1, cpu_wall_factor=wall_factor)
    executed, _ = executor.preprocess(new_notebook(cells=[new_code_cell(source)]), {})
    return executed.cells[0], executor


def test_a_cell_that_computes_past_its_cpu_time_is_stopped() -> None:
    cell, executor = _run("while True:\n    pass", wall_factor=60)
    assert cell.outputs[-1].ename == "CellTimeoutError"
    assert executor.limit is not None and executor.limit.reached == "cpu"


def test_a_cell_that_sleeps_is_stopped_at_the_wall_clock_cap() -> None:
    cell, executor = _run("import time\ntime.sleep(600)", wall_factor=2)
    assert cell.outputs[-1].ename == "CellTimeoutError"
    assert executor.limit is not None and executor.limit.reached == "wall"


def test_a_cell_starved_of_cpu_time_is_not_stopped_at_its_timeout() -> None:
    cell, _ = _run(HELD, wall_factor=10)
    assert [output.get("text") for output in cell.outputs] == ["finished\n"]
