"""The course's kernel manager: its kernel is killed at shutdown, not asked to exit."""

from __future__ import annotations

from pathlib import Path

import nbformat
from nbclient import NotebookClient

from course_grade.run.kernels import IpcKernelManager


def test_a_kernel_is_killed_at_shutdown_so_its_exit_handlers_never_run(tmp_path: Path) -> None:
    """Nothing a kernel does after its last reply reaches a notebook: its interpreter's teardown is skipped."""
    mark = tmp_path / "exited"
    code = f"import atexit, pathlib\natexit.register(pathlib.Path({str(mark)!r}).write_text, 'yes')\nprint('ran')"
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(code)])
    NotebookClient(
        notebook, timeout=60, kernel_name="python3", kernel_manager_class=IpcKernelManager
    ).execute()
    assert notebook.cells[0].outputs[0]["text"] == "ran\n"
    assert not mark.exists()
