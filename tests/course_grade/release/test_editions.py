"""The learners' edition: no key of an open assignment, no solution, no hidden test, no wrong answer; Run All
reaches the end of its notebooks on its own library."""

from __future__ import annotations

import ast
import json
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient
from nbformat.v4 import new_code_cell

import course_lib
from course_grade.cells import visible
from course_grade.notebooks import read
from course_grade.release.bundle import LIBRARY, EditionError, plan_edition
from course_grade.release.imports import closure, graph, modules
from course_grade.release.keys import BUILDS_ON, KEYS, unpublished, with_prerequisites
from course_grade.run.kernels import IpcKernelManager
from course_grade.score.hidden import hidden_lines
from course_grade.selftest.bypasses import reference_module
from grading.build_notebooks import assignments
from grading.wrong_answers import published
from tests.support.grading_helpers import COMMAND, fresh_course

ROOT = Path(__file__).resolve().parents[3]
NOTEBOOKS = ROOT / "notebooks"
SOURCES = sorted((ROOT / "grading" / "source").glob("*/*.ipynb"))
ASSIGNMENT = "01_envelope"
EDGES = graph(modules(LIBRARY))


def _solution_names(path: Path) -> set[str]:
    """The functions and classes an instructor's solution cells define."""
    names = set()
    for cell in read(path).cells:
        if cell.metadata.get("nbgrader", {}).get("solution") and cell.cell_type == "code":
            tree = ast.parse(cell.source)
            names |= {node.name for node in tree.body if isinstance(node, ast.FunctionDef | ast.ClassDef)}
    return names


@pytest.mark.parametrize("path", SOURCES, ids=lambda path: path.stem)
def test_every_graded_function_of_the_library_is_declared_a_key(path: Path) -> None:
    defined = {reference_module(name) for name in _solution_names(path)} - {None}
    assert defined <= set(KEYS[path.parent.name])


@pytest.mark.parametrize("assignment", sorted(KEYS))
def test_a_key_reaches_only_the_keys_it_declares_it_builds_on(assignment: str) -> None:
    allowed = {module for name in with_prerequisites([assignment]) for module in KEYS[name]}
    every_key = {module for modules in KEYS.values() for module in modules}
    for module in KEYS[assignment]:
        assert closure(module, EDGES) & every_key <= allowed, module


@pytest.mark.parametrize("assignment", sorted(KEYS))
def test_an_assignment_declares_every_key_it_builds_on_through_another(assignment: str) -> None:
    """The bundle names the keys an assignment declares: the declaration lists those it reaches through others."""
    assert set(BUILDS_ON.get(assignment, ())) == set(with_prerequisites([assignment])) - {assignment}


def _importing_the_key(folder: Path, assignment: str = "02_dispatcher") -> Path:
    """A copy of the learners' notebooks in which `assignment`'s also imports its own key (as 02's once did)."""
    shutil.copytree(NOTEBOOKS, folder)
    path = folder / f"{assignment}.ipynb"
    notebook = nbformat.read(path, as_version=4)
    notebook.cells.insert(1, new_code_cell("from course_lib import stock"))
    nbformat.write(notebook, path)
    return folder


@pytest.mark.parametrize(
    "module",
    [
        "course_lib.turns",
        "course_lib.clients",
        "course_lib.desk",
        "course_lib.pack",
        "course_lib.pack_record",
    ],
)
def test_the_capstones_infrastructure_imports_none_of_its_keys(module: str) -> None:
    """What notebook 07 imports besides its keys reaches them through no import, parent package included."""
    assert closure(module, EDGES) and not closure(module, EDGES) & set(KEYS["07_capstone"])


def test_the_bundle_refuses_a_notebook_that_needs_an_unpublished_key(tmp_path: Path) -> None:
    with pytest.raises(EditionError, match=r"02_dispatcher\.ipynb: `from course_lib import stock` needs "
                       r"course_lib\.stock \(the key of 02_dispatcher\)"):  # fmt: skip
        plan_edition(["02_dispatcher"], [], _importing_the_key(tmp_path / "notebooks"))


def test_bundling_an_assignment_publishes_and_names_the_keys_it_builds_on() -> None:
    edition = plan_edition(["07_capstone"], ["07_capstone"], NOTEBOOKS)
    assert "05_failures" in edition.published_keys and "05_failures" in " ".join(edition.notes)
    assert "course_lib.tools" in edition.library and "course_lib.arithmetic" not in edition.library


# The edition of 01, bundled by the command line, then moved elsewhere (nothing may point back).


@pytest.fixture(scope="module", params=[[ASSIGNMENT], []], ids=["01", "the-whole-course"])
def edition(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The edition of 01, and of every assignment (which publishes the keys that 06 and 07 build on)."""
    folder = tmp_path_factory.mktemp("edition")
    done = subprocess.run(
        [COMMAND, "bundle", str(folder / "out"), *request.param], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    shutil.copytree(folder / "out", folder / "elsewhere")
    shutil.rmtree(folder / "out")
    return folder / "elsewhere"


def _texts(root: Path) -> dict[Path, str]:
    """Every text file of a folder; a notebook as its cells' sources and outputs, decoded."""
    found = {}
    for path in root.rglob("*"):
        if path.suffix == ".ipynb":
            cells = read(path).cells
            found[path] = "\n".join(cell.source for cell in cells) + json.dumps(
                [c.get("outputs") for c in cells]
            )
        elif path.is_file():
            found[path] = path.read_text(encoding="utf-8")
    return found


def _lines(text: str, shortest: int = 30) -> set[str]:
    """The stripped lines of a text long enough to be telling."""
    return {line.strip() for line in text.split("\n") if len(line.strip()) >= shortest}


def _published(edition: Path) -> list[str]:
    """The assignments whose keys an edition says it publishes."""
    return list(json.loads((edition / "edition.json").read_text(encoding="utf-8"))["published_keys"])


def test_the_edition_says_what_it_holds(edition: Path) -> None:
    record = json.loads((edition / "edition.json").read_text(encoding="utf-8"))
    readme = (edition / "README.md").read_text(encoding="utf-8")
    if record["assignments"] == [ASSIGNMENT]:
        assert record == {"assignments": [ASSIGNMENT], "published_keys": []} and "published: none" in readme
    else:
        assert record["assignments"] == assignments()
        built_on = {name for names in BUILDS_ON.values() for name in names}  # what some assignment builds on
        assert (
            record["published_keys"]
            == sorted(built_on)
            == ["01_envelope", "03_loop", "04_wire", "05_failures"]
        )
        assert all(name in readme for name in record["published_keys"])


def test_no_key_of_an_open_assignment_is_in_the_edition(edition: Path) -> None:
    """A key's lines that its learners' notebook shows anyway (07's skeletons keep their docstrings) are not telling."""
    shown = [*_texts(edition / "course_lib").values(), *_texts(NOTEBOOKS).values()]
    kept = "\n".join(shown)
    for module in unpublished(_published(edition)):
        path = modules(LIBRARY)[module]
        assert not (edition / path.relative_to(ROOT)).exists(), module
        telling = {line for line in _lines(path.read_text(encoding="utf-8"), 40) - _lines(kept, 40)
                   if not line.startswith(("from ", "import "))}  # fmt: skip
        assert telling and not any(line in text for text in _texts(edition).values() for line in telling), (
            module
        )


def test_the_edition_library_is_the_instructors_infrastructure_unchanged(edition: Path) -> None:
    held = modules(edition / "course_lib")
    assert held and not set(held) & unpublished(_published(edition))
    assert all(path.read_bytes() == modules(LIBRARY)[name].read_bytes() for name, path in held.items())


def test_no_solution_hidden_test_or_wrong_answer_is_in_the_edition(edition: Path) -> None:
    """The library is checked above; everything else (notebooks, README, scripts) is searched line by line."""
    everything = "\n".join(_texts(edition).values())
    assert not any(marker in everything for marker in ("BEGIN SOLUTION", "HIDDEN TESTS", "wrong_answers"))
    rest = "\n".join(text for path, text in _texts(edition).items() if "course_lib" not in path.parts)
    secret, public = set(), []
    for path in SOURCES:
        for cell in read(path).cells:
            inside, outside = _solution(cell.source)
            secret |= _lines(
                inside
            )  # what the instructor's notebook shows learners: all else but hidden tests
            public += [visible(outside), json.dumps(cell.get("outputs", []))]
            secret |= {line for line in hidden_lines(cell.source) if len(line) >= 30}
    for assignment in KEYS:
        secret |= {line for answer in published(assignment) for line in _lines(answer.code)}
    shown = "\n".join(public)
    assert secret and [line for line in sorted(secret) if line in rest and line not in shown] == []


def _solution(source: str) -> tuple[str, str]:
    """A cell's solution regions, and the rest (which the learners' version keeps around its stub)."""
    inside, outside, solving = [], [], False
    for line in source.split("\n"):
        if "BEGIN SOLUTION" in line or "END SOLUTION" in line:
            solving = "BEGIN" in line
        else:
            (inside if solving else outside).append(line)
    return "\n".join(inside), "\n".join(outside)


def _isolated(edition: Path) -> dict[str, str]:
    """An environment whose `python -S` sees the edition and the installed packages, not the editable course."""
    site = sysconfig.get_paths()["purelib"]  # -S: no .pth file runs, so the course's editable finder neither
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(edition), site])}


def test_the_edition_library_imports_without_the_key(edition: Path) -> None:
    """Infrastructure imports from the edition; no key it leaves out is there to import."""
    keys = sorted(unpublished(_published(edition)))
    code = (
        "import importlib, course_lib.standin, course_lib.checks\nprint(course_lib.__file__)\n"
        f"for key in {keys!r}:\n    try:\n        importlib.import_module(key)\n"
        "    except ModuleNotFoundError as error:\n"
        "        print(key if key == error.name or key.startswith(f'{error.name}.') else error)\n"
    )
    done = subprocess.run([sys.executable, "-S", "-c", code], capture_output=True, text=True,
                          env=_isolated(edition), cwd=edition, check=False)  # fmt: skip
    assert keys and done.stdout.split() == [str(edition / "course_lib" / "__init__.py"), *keys], done.stderr


def test_the_quiz_answers_follow_the_publish_switch(edition: Path) -> None:
    """A quiz's answers are part of its assignment's key: present once published, and then the self-check grades
    a click; absent while the assignment is open, and then it names the value to write instead."""
    published_now = _published(edition)
    for assignment in KEYS:
        held = (edition / "course_lib" / "quiz_answers" / f"n{assignment}.py").exists()
        assert held == (assignment in published_now), assignment
    code = "from course_lib.quiz import feedback\nprint(feedback('01_envelope', 1, 'A'))"
    done = subprocess.run([sys.executable, "-S", "-c", code], capture_output=True, text=True,
                          env=_isolated(edition), cwd=edition, check=False)  # fmt: skip
    if ASSIGNMENT in published_now:
        assert done.stdout.startswith("1: not this one. The idea: "), done.stderr
    else:
        assert done.stdout.strip() == (
            '1: write q1 = "A" in the answer cell below; the answers come with the published edition'
        ), done.stderr


@pytest.mark.timeout(300)
@pytest.mark.parametrize("assignment", assignments())
def test_run_all_of_a_learners_notebook_reaches_the_end_on_its_own_edition(
    assignment: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    done = subprocess.run(
        [COMMAND, "bundle", str(tmp_path / "out"), assignment], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    edition = tmp_path / "elsewhere"
    shutil.move(tmp_path / "out", edition)
    absent = unpublished(json.loads((edition / "edition.json").read_text(encoding="utf-8"))["published_keys"])
    spec = tmp_path / "kernels" / "edition"
    spec.mkdir(parents=True)
    argv = [sys.executable, "-S", "-m", "ipykernel_launcher", "-f", "{connection_file}"]
    kernel = {"argv": argv, "display_name": "edition", "language": "python", "env": _isolated(edition)}
    (spec / "kernel.json").write_text(json.dumps(kernel), encoding="utf-8")
    monkeypatch.setenv("JUPYTER_PATH", str(tmp_path))
    notebook = nbformat.read(edition / "notebooks" / f"{assignment}.ipynb", as_version=4)
    probe = "import sys, course_lib\nprint(course_lib.__file__, sorted(m for m in sys.modules if 'course_lib' in m))"
    notebook.cells.append(new_code_cell(probe))
    folder = {"metadata": {"path": str(edition / "notebooks")}}
    client = NotebookClient(
        notebook, timeout=120, kernel_name="edition", resources=folder, kernel_manager_class=IpcKernelManager
    )
    client.execute()  # raises CellExecutionError at the first failing cell not tagged raises-exception
    printed = notebook.cells[-1].outputs[0]["text"]
    assert printed.startswith(str(edition / "course_lib" / "__init__.py"))
    assert str(Path(course_lib.__file__).parent) not in printed
    assert absent and [module for module in sorted(absent) if f"'{module}'" in printed] == []


def test_the_course_config_publishes_keys_and_the_command_line_overrides_it(tmp_path: Path) -> None:
    course = fresh_course(tmp_path)
    _importing_the_key(tmp_path / "notebooks")
    with open(course / "nbgrader_config.py", "a", encoding="utf-8") as config:
        config.write('\nc.Edition.published_keys = ["02_dispatcher"]\n')
    bundle = [COMMAND, "bundle", "--course", str(course)]
    done = subprocess.run([*bundle, str(tmp_path / "a"), "02_dispatcher"], capture_output=True, text=True)
    record = json.loads((tmp_path / "a" / "edition.json").read_text(encoding="utf-8"))
    assert done.returncode == 0 and record["published_keys"] == ["02_dispatcher"]
    done = subprocess.run(
        [*bundle, str(tmp_path / "b"), "02_dispatcher", "--publish-keys", ""], capture_output=True, text=True
    )
    assert done.returncode == 1 and "02_dispatcher.ipynb: `from course_lib import stock`" in done.stderr
    assert not (tmp_path / "b").exists()
