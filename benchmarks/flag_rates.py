"""The review flags measured: how often they fire on honest work, and how often they catch a copy.

    .venv/bin/python benchmarks/flag_rates.py [--assignment 06_security] [--scores]

Honest work, per assignment: the instructor's solution cells; every correct variant the wrong-answer catalogue
publishes (`grading/wrong_answers`, the `_*_OK` answers its wrong ones are spliced from), each alone in the
learners' notebook (a learner who wrote one part) and all together; and the independent answers written from
the prose alone (`grading/independent_answers`). Each is compared, as `course-grade` compares a class, with the
reference (the key's source), the instructor's solution cells (the instructor's own: with the key only) and
every other honest answer of another origin as a classmate; it is a false positive if any of those pairs
reaches the assignment's threshold (`similarity.threshold_for`). The static flags (`intake.cleaning.flags`) are
run on every honest cell too.

Copies, per assignment: of the reference (its graded functions, and its modules whole), of the instructor's
solution and of each honest classmate, verbatim, with every identifier the grader does not call renamed,
reformatted (`ast.unparse`: comments, quotes, spacing and line breaks redone), with the top-level definitions
in reverse order, and all three at once; a copy is caught if its pair with the original reaches the threshold.

Prints one row per assignment (the table tests/course_grade/report/test_flag_rates.py holds to: false positives
<= 2%, copies caught >= 95%, over the course), and with `--scores` the scores each threshold was set between.
"""

from __future__ import annotations

import argparse
import ast
import importlib
import io
import json
import keyword
import os
import sys
import tokenize
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from course_grade.intake.cleaning import flags, source_hash  # noqa: E402
from course_grade.report.similarity import (  # noqa: E402
    _fingerprint,
    _similarity,
    graded_names,
    key_source,
    solution_source,
    threshold_for,
)
from grading.independent_answers import independent  # noqa: E402

ASSIGNMENTS = sorted(path.name for path in (ROOT / "grading" / "source").iterdir() if path.is_dir())


def _notebook(folder: Path, assignment: str) -> dict[str, Any]:
    path = folder / f"{assignment}.ipynb"
    return dict(json.loads(path.read_text(encoding="utf-8")))


def instructor(assignment: str) -> dict[str, Any]:
    return _notebook(ROOT / "grading" / "source" / assignment, assignment)


def learners(assignment: str) -> dict[str, Any]:
    return _notebook(ROOT / "notebooks", assignment)


def submission(assignment: str, cells: Mapping[str, str]) -> dict[str, Any]:
    """The learners' notebook with the solution cells named in `cells` (grade_id -> source) replaced."""
    notebook = learners(assignment)
    for cell in notebook["cells"]:
        grade_id = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")
        if cell.get("metadata", {}).get("nbgrader", {}).get("solution") and grade_id in cells:
            cell["source"] = cells[grade_id]
    return notebook


def catalogue(assignment: str) -> dict[str, dict[str, str]]:
    """The catalogue's correct variants: name -> {grade_id: source}, each alone and, the longest of each cell,
    all together. A variant's cell is the one of the wrong answers spliced from it (the longest common start)."""
    module = importlib.import_module(f"grading.wrong_answers.{assignment}")
    variants = {
        name: value.strip() + "\n"
        for name, value in vars(module).items()
        if name.endswith("_OK") and isinstance(value, str)
    }
    votes: dict[str, dict[str, int]] = {}
    for answer in module.WRONG_ANSWERS:
        best = max(variants, key=lambda name: len(os.path.commonprefix([variants[name], answer.code])))
        votes.setdefault(best, {}).setdefault(answer.cell, 0)
        votes[best][answer.cell] += 1
    found: dict[str, dict[str, str]] = {}
    together: dict[str, str] = {}
    for name, cells in sorted(votes.items()):
        cell = max(cells, key=lambda grade_id: cells[grade_id])
        found[f"catalogue {name.strip('_').lower()}"] = {cell: variants[name]}
        if len(variants[name]) > len(together.get(cell, "")):
            together[cell] = variants[name]
    if len(found) > 1:
        found["catalogue (all parts)"] = together
    return found


# -- copies ---------------------------------------------------------------------------------------------


def renamed(code: str, keep: set[str]) -> str:
    """Every name the code binds (arguments, variables, helpers), but `keep`, renamed, token by token."""
    tree = ast.parse(code)
    bound = {node.arg for node in ast.walk(tree) if isinstance(node, ast.arg)}
    bound |= {
        node.id for node in ast.walk(tree) if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store)
    }
    kinds = ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef
    bound |= {node.name for node in ast.walk(tree) if isinstance(node, kinds)}
    bound -= keep | {"self", "cls"} | set(keyword.kwlist)
    names = {name: f"{'_' if name.startswith('_') else ''}v{index}_{len(name)}" for index, name in
             enumerate(sorted(bound))}  # fmt: skip
    out, previous = [], ""
    for token in tokenize.generate_tokens(io.StringIO(code).readline):
        text = token.string
        if token.type == tokenize.NAME and text in names and previous != ".":
            text = names[text]
        out.append((token.type, text))
        previous = token.string if token.type not in (tokenize.NL, tokenize.COMMENT) else previous
    return tokenize.untokenize(out)


def reformatted(code: str) -> str:
    """The code as `ast.unparse` writes it: no comment, its own quotes, spacing and line breaks."""
    return ast.unparse(ast.parse(code)) + "\n"


def reordered(code: str) -> str:
    """The imports first, then the other top-level statements in reverse order, each with its own text."""
    tree = ast.parse(code)
    lines = code.splitlines(keepends=True)
    pieces = []
    for node in tree.body:
        start = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))])
        pieces.append((node, "".join(lines[start - 1 : node.end_lineno])))
    imports = [text for node, text in pieces if isinstance(node, ast.Import | ast.ImportFrom)]
    rest = [text for node, text in pieces if not isinstance(node, ast.Import | ast.ImportFrom)]
    return "\n".join(imports) + "\n\n" + "\n\n".join(reversed(rest)) + "\n"


def copies(code: str, keep: set[str]) -> dict[str, str]:
    """A pasted source disguised four ways, and verbatim."""
    return {
        "verbatim": code,
        "renamed": renamed(code, keep),
        "reformatted": reformatted(code),
        "reordered": reordered(code),
        "all three": reordered(reformatted(renamed(code, keep))),
    }


def graded_definitions(reference: str, names: set[str]) -> str:
    """The top-level definitions of the graded names, and every top-level constant, out of the reference."""
    found = []
    for module in reference.split("\n\n\n\n"):
        try:
            tree = ast.parse(module)
        except SyntaxError:
            continue
        for node in tree.body:
            kinds = ast.FunctionDef | ast.ClassDef | ast.AsyncFunctionDef
            constant = isinstance(node, ast.Assign | ast.AnnAssign) and node.col_offset == 0
            if (isinstance(node, kinds) and node.name in names) or constant:
                found.append(ast.get_source_segment(module, node) or "")
    return "\n\n\n".join(found) + "\n"


# -- the measurement ------------------------------------------------------------------------------------


@dataclass
class Rates:
    assignment: str
    threshold: float
    honest: dict[str, float] = field(default_factory=dict)
    """honest answer -> its highest score against the reference, the instructor's solution or a classmate."""
    copied: dict[str, float] = field(default_factory=dict)
    """copy -> its score against what it copied."""
    closest: dict[str, str] = field(default_factory=dict)
    """honest answer -> what its highest score was against."""
    static: dict[str, list[str]] = field(default_factory=dict)
    """honest answer -> the static flags its cells raise."""

    @property
    def false_positives(self) -> int:
        return sum(score >= self.threshold for score in self.honest.values()) + sum(
            map(bool, self.static.values())
        )

    @property
    def caught(self) -> int:
        return sum(score >= self.threshold for score in self.copied.values())


def honest_answers(assignment: str) -> dict[str, tuple[str, dict[str, Any]]]:
    """name -> (origin, notebook as submitted) of every honest answer of an assignment."""
    found: dict[str, tuple[str, dict[str, Any]]] = {"instructor": ("instructor", instructor(assignment))}
    for name, cells in catalogue(assignment).items():
        found[name] = ("catalogue", submission(assignment, cells))
    for answer in independent(assignment):
        found[f"independent {answer.author}"] = (answer.author, submission(assignment, answer.cells))
    return found


def measure(assignment: str, threshold: float | None = None) -> Rates:
    """The scores of an assignment's honest answers and copies (copydetect, as the review computes them)."""
    rates = Rates(assignment, threshold_for(assignment) if threshold is None else threshold)
    names = graded_names(instructor(assignment))
    keep = set(names) | {"ToolError", "course_lib"}
    reference = key_source(names)
    boilerplate = [int(h) for h in _fingerprint("boilerplate", solution_source(learners(assignment))).hashes]

    def fingerprint(name: str, code: str) -> Any:
        return _fingerprint(name, code, boilerplate)

    answers = honest_answers(assignment)
    sources = {name: solution_source(notebook) for name, (_, notebook) in answers.items()}
    prints = {name: fingerprint(name, code) for name, code in sources.items()}
    key, solution = fingerprint("reference", reference), prints["instructor"]
    known = frozenset(
        source_hash(cell.get("source", ""))
        for notebook in (instructor(assignment), learners(assignment))
        for cell in notebook["cells"]
    )
    for name, (origin, notebook) in answers.items():
        others = {"the reference": key} | (
            {"the instructor's solution": solution} if origin != "instructor" else {}
        )
        others |= {other: prints[other] for other, (theirs, _) in answers.items() if theirs != origin}
        score, closest = max((_similarity(prints[name], print_), other) for other, print_ in others.items())
        rates.honest[name], rates.closest[name] = score, closest
        if origin != "instructor":
            rates.static[name] = flags(notebook, known)
    originals = {
        "the reference (graded definitions)": graded_definitions(reference, set(names)),
        "the reference (modules)": reference,
        "the instructor's solution": sources["instructor"],
        **{f"classmate {name}": code for name, code in sources.items() if name.startswith("independent")},
    }
    for original, code in originals.items():
        against = key if original.startswith("the reference") else fingerprint(original, code)
        for how, copy in copies(code, keep).items():
            rates.copied[f"{original}, {how}"] = _similarity(fingerprint("copy", copy), against)
    return rates


def suggested(rates: Rates) -> float:
    """The midpoint between an assignment's highest honest score and its lowest copy, rounded down to 0.01."""
    return int((max(rates.honest.values()) + min(rates.copied.values())) / 2 * 100) / 100


def rows(rates: list[Rates]) -> Iterator[str]:
    yield (
        f"{'assignment':<15}{'threshold':>10}{'honest':>8}{'max honest':>12}{'false +':>9}"
        f"{'copies':>8}{'min copy':>10}{'caught':>8}"
    )
    for r in rates:
        yield (
            f"{r.assignment:<15}{r.threshold:>10.2f}{len(r.honest):>8}{max(r.honest.values()):>12.2f}"
            f"{r.false_positives:>9}{len(r.copied):>8}{min(r.copied.values()):>10.2f}{r.caught:>8}"
        )
    honest = sum(len(r.honest) for r in rates)
    copied = sum(len(r.copied) for r in rates)
    false = sum(r.false_positives for r in rates)
    caught = sum(r.caught for r in rates)
    yield (
        f"course: false positives on honest work {false}/{honest} = {false / honest:.1%} (target <= 2%); "
        f"copies caught {caught}/{copied} = {caught / copied:.1%} (target >= 95%)"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--assignment", action="append", choices=ASSIGNMENTS)
    parser.add_argument("--scores", action="store_true", help="every honest answer's and copy's score")
    args = parser.parse_args(argv)
    measured = [measure(name) for name in args.assignment or ASSIGNMENTS]
    for line in rows(measured):
        print(line)
    print(
        "suggested thresholds (the midpoint of the gap between the highest honest score and the lowest copy):"
    )
    for r in measured:
        print(
            f"    {r.assignment!r}: {suggested(r):.2f},  # honest <= {max(r.honest.values()):.2f}, "
            f"copies >= {min(r.copied.values()):.2f}"
        )
    if args.scores:
        for r in measured:
            print(f"\n{r.assignment}:")
            for name, score in sorted(r.honest.items(), key=lambda item: -item[1]):
                print(
                    f"  honest {score:.2f}  {name} ~ {r.closest[name]}"
                    + (f"  STATIC: {'; '.join(r.static[name])}" if r.static.get(name) else "")
                )
            for name, score in sorted(r.copied.items(), key=lambda item: item[1]):
                print(f"  copy   {score:.2f}  {name}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
