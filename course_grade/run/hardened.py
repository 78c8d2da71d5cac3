"""nbgrader 0.9.6, hardened where a hostile or broken submission stops it; each class fixes one thing.

- `GuardedExecute` (replaces `Execute`): nbgrader stops grading a submission whose kernel dies
  (`os._exit`, a crash, memory exhaustion) and leaves its grades empty; this records the death as an error
  on that cell and on every later code cell, so the cells that ran keep their points and the rest score 0.
  A cell that goes on running after its timeout's interrupt (it ignores SIGINT) made nbgrader fail the
  whole submission 4 s later ("Timeout waiting for IOPub output"); this stops that kernel and fails the
  cells from there on in the same way. A cell's timeout counts its kernel's CPU time (`course_grade.cputime`):
  a cell that got little of a core on a loaded machine runs on, up to a wall-clock cap of three times it.
  Output that arrives late on a loaded machine no longer fails the submission either: the grade comes
  from the kernel's reply, which nbgrader records as an error output.
  A kernel that dies while starting (a port taken in between on a loaded machine) is started again,
  up to `startup_attempts` times, instead of failing the submission: no learner code has run yet.
  It also caps each cell's output while the kernel runs (nbgrader's `LimitOutput` counts lines, so one
  line of megabytes passes), never dropping an error or the fact that stderr was written.
- `SafeOverwriteCells` (replaces `OverwriteCells`): with `add_missing_cells`, nbgrader raises `KeyError` on
  a duplicated graded cell or a notebook from another assignment: the cells it un-grades keep a partial
  `nbgrader` metadata, and a missing test is put back after its solution cell, which may be missing too.
  This removes that metadata whole, and puts a test back after the nearest earlier cell still there.
  nbgrader places a missing test after the previous cell it tracks (the solution), ahead of the untracked
  worked examples the test relies on, and leaves a test the learner moved up where it is; given the
  instructor's notebooks (`instructor_folder`), this moves every test cell that would run before a code cell
  preceding it there to just after the last such cell (`course_grade.cells.in_context`).
- `HideHiddenTests` (added to GenerateFeedback's preprocessors with `--hide-hidden-tests`): the autograded
  notebook holds the instructor's test cells whole, hidden tests included, and their outputs can show a
  hidden test's inputs and expected values; this shows "hidden test k of N failed" instead, keeps a visible
  failure's message, and drops every output line repeating a hidden line (`course_grade.score.hidden`).
  Scores come from the gradebook: they do not change.
- `LiteralAutograde`, `LiteralGenerateFeedback`: nbgrader globs inside the folder it matched, so a student
  id holding `[`, `*` or `?` matches no notebook; these escape that folder first.

`c.Execute.*` and `c.OverwriteCells.*` settings apply to the subclasses as to the originals.

It is a little over ~350 lines because it is the list of nbgrader's weak points and their fixes, each class
one fix against one nbgrader class; read together they say where nbgrader 0.9.6 is trusted and where not,
and `workers` configures them as one set.
"""

from __future__ import annotations

import copy
import glob
import json
import os
import queue
import time
from collections.abc import Callable
from typing import Any

from jupyter_core.utils import run_sync
from nbclient.exceptions import DeadKernelError
from nbconvert.preprocessors import Preprocessor
from nbformat import NotebookNode
from nbgrader import utils  # type: ignore[import-untyped]
from nbgrader.converters import Autograde, GenerateFeedback, NbGraderException  # type: ignore[import-untyped]
from nbgrader.preprocessors import Execute, OverwriteCells  # type: ignore[import-untyped]
from traitlets import Bool, Float, Integer, Unicode

from course_grade.cells import cell_grade_id, in_context, visible
from course_grade.cputime import WALL_FACTOR, CpuLimit, tree_cpu_seconds
from course_grade.notebooks import node
from course_grade.run.kernels import GradingKernelManager
from course_grade.score.hidden import for_feedback

DIED = "the kernel died while running this cell (os._exit, a crash or too much memory)"
NOT_RUN = "not run: the kernel died in an earlier cell"
DEAD = "DeadKernelError"
"""The error name of a cell that ran when its kernel died, and of the cells after it."""

UNSTOPPABLE = (
    "this cell went on running after it was interrupted at its time limit, so the grader stopped the kernel"
)
NOT_RUN_STOPPED = "not run: the grader stopped the kernel in an earlier cell that could not be interrupted"
STOPPED = "KernelStoppedError"
"""The error name of a cell that could not be interrupted, and of the cells after it."""


def _error(ename: str, message: str) -> NotebookNode:
    """An error output nbgrader scores as a failure, showing `message` in the feedback."""
    return node(output_type="error", ename=ename, evalue=message, traceback=[f"{ename}: {message}"])


class GuardedExecute(Execute):  # type: ignore[misc]
    """Execute every cell; after a kernel death or an unstoppable cell, fail the rest; cap each cell's output."""

    max_output_chars = Integer(
        200_000, help="Characters of output kept per cell while executing; errors are always kept."
    ).tag(config=True)
    interrupt_grace = Integer(
        10, help="Seconds a kernel has to answer again after its cell was interrupted, before it is stopped."
    ).tag(config=True)
    raise_on_iopub_timeout = Bool(
        False, help="Late output is dropped instead of failing the submission: the reply decides the grade."
    ).tag(config=True)

    startup_attempts = Integer(
        3, help="Kernel start-ups to try: one that fails on a loaded machine is not the learner's doing."
    ).tag(config=True)

    cpu_wall_factor = Float(
        WALL_FACTOR,
        help="A cell's timeout counts its kernel's CPU time, up to this multiple of it in wall time.",
    ).tag(config=True)

    cpu_reading: Callable[[int], float | None] = staticmethod(tree_cpu_seconds)
    """CPU seconds used by the process tree of a kernel's pid (tests replace it)."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("kernel_manager_class", GradingKernelManager)  # nbgrader's __init__ forces its own
        super().__init__(**kwargs)

    def preprocess(self, nb: NotebookNode, resources: Any = None, km: Any = None) -> Any:
        """Execute the notebook; a dead or stopped kernel fails the cells from there on, not the notebook."""
        attempt = 1
        while True:
            self._gone: tuple[str, str] | None = None  # (error name, message) for the cells left
            self._interrupted = self._ran = False
            self._sizes: dict[int, int] = {}
            self.limit: CpuLimit | None = None
            """The time limit of the cell running (or of the last one)."""
            try:
                return super().preprocess(nb, resources, km)
            except RuntimeError as error:  # nbclient's "Kernel died before replying to kernel_info"
                if self._ran or attempt >= self.startup_attempts:
                    raise
                attempt += 1
                self.log.warning(
                    "The kernel did not start (%s); starting another (attempt %d)", error, attempt
                )

    def preprocess_cell(self, cell: NotebookNode, resources: Any, index: int) -> Any:
        """Execute one cell, or mark it failed if the kernel is already gone."""
        if cell.cell_type != "code":
            return cell, resources
        if self._gone is not None:
            cell.outputs = [_error(*self._gone)]
            return cell, resources
        self._interrupted, self._ran = False, True
        timeout = self._get_timeout(cell)
        self.limit = None if timeout is None else CpuLimit(timeout, self._kernel_cpu, self.cpu_wall_factor)
        try:
            result = super().preprocess_cell(cell, resources, index)
        except DeadKernelError:
            self._gone = (DEAD, NOT_RUN)
            cell.outputs.append(_error(DEAD, DIED))
            return cell, resources
        if self._interrupted and not self._answers(self.interrupt_grace):
            run_sync(self.km.shutdown_kernel)(now=True)
            self._gone = (STOPPED, NOT_RUN_STOPPED)
            cell.outputs.append(_error(STOPPED, UNSTOPPABLE))
        return result

    async def _async_handle_timeout(self, timeout: int, cell: NotebookNode | None = None) -> Any:
        """At the cell's timeout in wall-clock time, wait on while its kernel has used less CPU time than
        the timeout (up to the wall-clock cap); then interrupt the cell as nbgrader does, remembering it was,
        to check the kernel stopped."""
        limit = self.limit
        while limit is not None and not self._interrupted and (wait := limit.wait()) > 0:
            if await self.kc.shell_channel.socket.poll(int(1000 * min(wait, 1.0))):
                return None  # the reply came: nbclient reads it, and the cell was not interrupted
            await self._async_check_alive()  # nbclient stopped watching the kernel when the timeout fired
        self._interrupted = True
        return await super()._async_handle_timeout(timeout, cell)

    def _kernel_cpu(self) -> float | None:
        """CPU seconds used by the kernel's process tree, or None where they cannot be read."""
        pid = getattr(getattr(self.km, "provisioner", None), "pid", None)
        return self.cpu_reading(pid) if isinstance(pid, int) else None

    def _answers(self, seconds: float) -> bool:
        """True if the kernel answers a request within `seconds`, i.e. it is no longer busy with a cell."""
        request = self.kc.kernel_info()
        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0:
            try:
                reply = run_sync(self.kc.shell_channel.get_msg)(timeout=left)
            except queue.Empty:
                return False
            if reply["parent_header"].get("msg_id") == request:
                return True
        return False

    def output(
        self, outs: list[NotebookNode], msg: dict[str, Any], display_id: str | None, cell_index: int
    ) -> Any:
        """Keep an output only while the cell's outputs stay under the cap.

        What decides a grade survives the cap, shortened: an error, a result (nbgrader reads partial
        credit from it), and the fact that something was written to stderr.
        """
        out = super().output(outs, msg, display_id, cell_index)
        if out is None or not outs or outs[-1] is not out:
            return out
        before = self._sizes.get(cell_index, 0)
        total = before + _size(out)
        self._sizes[cell_index] = total
        if total <= self.max_output_chars:
            return out
        if out.output_type == "stream" and before < self.max_output_chars:  # keep the start of it
            out.text = str(out.get("text", ""))[: self.max_output_chars - before]
            outs.append(node(output_type="stream", name="stdout", text=self._marker()))
            return out
        if out.output_type == "error":
            out.evalue = str(out.get("evalue", ""))[:2000]
            out.traceback = [str(line)[:2000] for line in out.get("traceback", [])[:100]]
            return out
        if out.output_type == "execute_result":
            out.data = {"text/plain": str(out.get("data", {}).get("text/plain", ""))[:2000]}
            out.metadata = {}
            return out
        if display_id:  # a later update_display_data finds it by position: keep it, emptied
            out.data, out.metadata = {"text/plain": "[output cut]"}, {}
            return out
        outs.pop()
        if out.output_type == "stream" and out.name == "stderr" and not _has_stderr(outs):
            outs.append(node(output_type="stream", name="stderr", text="[stderr output cut]\n"))
        if not any(_is_marker(o) for o in outs):
            outs.append(node(output_type="stream", name="stdout", text=self._marker()))
        return None

    def _marker(self) -> str:
        """The line that replaces the output cut (on stdout: stderr would fail the cell)."""
        return f"\n[output truncated by the grader: more than {self.max_output_chars:,} characters]\n"


def _size(output: NotebookNode) -> int:
    """About how many characters an output holds (its text, or its data of every kind)."""
    if output.output_type == "stream":
        return len(output.get("text", ""))
    if output.output_type == "error":
        return len(str(output.get("evalue", ""))) + sum(
            len(str(line)) for line in output.get("traceback", [])
        )
    return sum(len(str(value)) for value in output.get("data", {}).values())


def _has_stderr(outs: list[NotebookNode]) -> bool:
    """True if the cell already has output on stderr."""
    return any(o.output_type == "stream" and o.get("name") == "stderr" for o in outs)


def _is_marker(output: NotebookNode) -> bool:
    """True for the truncation marker this class adds."""
    return output.output_type == "stream" and "[output truncated by the grader" in output.get("text", "")


class SafeOverwriteCells(OverwriteCells):  # type: ignore[misc]
    """nbgrader's OverwriteCells; a cell it un-grades loses its whole nbgrader metadata, not just the id.

    With `strip_hidden_tests`, the test cells it puts back lose their hidden regions too: the learner's
    kernel runs only the visible tests, and the hidden ones run on the trusted side alone."""

    strip_hidden_tests = Bool(False, help="Leave the hidden tests out of the learner's kernel.").tag(
        config=True
    )
    instructor_folder = Unicode(
        "",
        help="The folder of the assignment's source notebooks: tests run after the cells they follow there.",
    ).tag(config=True)

    def preprocess(self, nb: NotebookNode, resources: Any) -> Any:
        """Drop the empty metadata DeduplicateIds leaves on extra copies, then overwrite as nbgrader does."""
        for cell in nb.cells:
            if "nbgrader" in cell.metadata and not cell.metadata.nbgrader.get("grade_id"):
                del cell.metadata["nbgrader"]
        nb, resources = super().preprocess(nb, resources)
        instructor = self._instructor(resources["nbgrader"]["notebook"])
        if instructor is not None:
            for grade_id in in_context(nb.cells, instructor):
                self.log.warning(
                    "Test cell %s ran before cells it follows in the source; moved after them", grade_id
                )
        if self.strip_hidden_tests:
            for cell in nb.cells:
                if cell.cell_type == "code" and utils.is_grade(cell) and not utils.is_solution(cell):
                    cell.source = visible(cell.source)
        return nb, resources

    def _instructor(self, notebook: str) -> list[Any] | None:
        """The cells of the instructor's notebook `notebook` (as JSON), or None when there is none to read."""
        if not self.instructor_folder:
            return None
        try:
            with open(os.path.join(self.instructor_folder, f"{notebook}.ipynb"), encoding="utf-8") as handle:
                cells = json.load(handle).get("cells")
        except (OSError, ValueError, AttributeError):
            return None
        return cells if isinstance(cells, list) else None

    def preprocess_cell(self, cell: NotebookNode, resources: Any, index: int) -> Any:
        """Overwrite one cell; if nbgrader removed its grade_id (unknown cell), remove the rest too."""
        cell, resources = super().preprocess_cell(cell, resources, index)
        if "nbgrader" in cell.metadata and "grade_id" not in cell.metadata.nbgrader:
            del cell.metadata["nbgrader"]
        return cell, resources

    def add_missing_grade_cells(self, nb: NotebookNode, resources: Any) -> Any:
        """nbgrader's way when it works; when a test's preceding cell is missing too, this class's way."""
        try:
            return super().add_missing_grade_cells(copy.deepcopy(nb), resources)
        except KeyError:
            return self._put_back(nb), resources

    def _put_back(self, nb: NotebookNode) -> NotebookNode:
        """Insert every missing graded cell after the nearest earlier source cell present (or first)."""
        source = self.gradebook.find_notebook(self.notebook_id, self.assignment_id)
        order = [cell.name for cell in source.source_cells]
        graded = {cell.name: cell for cell in source.grade_cells}
        solutions = {cell.name for cell in source.solution_cells}
        for position, name in enumerate(order):
            present = {
                cell_grade_id(cell): index for index, cell in enumerate(nb.cells) if cell_grade_id(cell)
            }
            if name not in graded or name in present:
                continue
            restored = self.missing_cell_transform(
                source.source_cells[position], graded[name].max_score, is_solution=name in solutions
            )
            earlier = [present[other] for other in order[:position] if other in present]
            nb.cells.insert(max(earlier) + 1 if earlier else 0, restored)
        return nb


class HideHiddenTests(Preprocessor):
    """Show no hidden test in the notebook a feedback page renders: see `course_grade.score.hidden`."""

    enabled = Bool(True)  # nbconvert's preprocessors are off unless told otherwise

    def preprocess(self, nb: NotebookNode, resources: Any) -> Any:
        """Every cell as the learner's feedback shows it: hidden regions out, their failures one line."""
        for_feedback(nb.cells, node)
        return nb, resources


class _LiteralFolders:
    """nbgrader's `init_notebooks`, escaping each matched folder before globbing the notebooks inside it."""

    def init_notebooks(self) -> None:
        """Find the notebooks to convert, as nbgrader does, for any folder name."""
        converter: Any = self  # an nbgrader converter: this class is only mixed into those
        converter.assignments, converter.notebooks = {}, []
        coursedir = converter.coursedir
        pattern = converter._format_source(coursedir.assignment_id, coursedir.student_id)
        for folder in glob.glob(pattern):
            found = glob.glob(os.path.join(glob.escape(folder), coursedir.notebook_id + ".ipynb"))
            if found:
                converter.assignments[folder] = found
        if not converter.assignments:
            raise NbGraderException(f"No notebooks were matched by '{pattern}'")


class LiteralAutograde(_LiteralFolders, Autograde):  # type: ignore[misc]
    """nbgrader's Autograde for any student id."""


class LiteralGenerateFeedback(_LiteralFolders, GenerateFeedback):  # type: ignore[misc]
    """nbgrader's GenerateFeedback for any student id."""
