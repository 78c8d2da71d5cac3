"""`course-grade`: the instructor's grading pipeline in one command, step by step or all at once.

    course-grade generate  [ASSIGNMENT ...]              the learners' versions (nbgrader generate_assignment;
                                                         `release`, its old name, still works)
    course-grade autograde SUBMISSIONS [ASSIGNMENT ...]  grade a folder of submissions, in parallel
    course-grade feedback  [ASSIGNMENT ...]              one HTML page per learner and notebook
    course-grade export    [ASSIGNMENT ...] [--to CSV]   grades.csv
    course-grade report    [ASSIGNMENT ...] [--to DIR]   report.html, per_question.csv (and canvas.csv,
                           [--roster FILE] [--lms NAME]  moodle.csv with a roster)
    course-grade run       SUBMISSIONS [ASSIGNMENT ...]  all of the above, then a summary (the report
                                                         and the exports beside grades.csv)

With SUBMISSIONS and no ASSIGNMENT, the assignments the submissions hold are graded (the run says which);
the other steps take every assignment of the course. The course is --course, else the current folder when it
is a course directory (it holds nbgrader_config.py and source/), else this repository's grading/.
    course-grade bundle    OUT [ASSIGNMENT ...]          the learners' edition: notebooks, a library without
                                                         unpublished keys (--publish-keys 01_envelope,...)

Exit status 0 when the pipeline ran (every submission graded, even with 0 points or a problem noted),
1 when it could not run (no course, no gradebook, a failed release, the Dask scheduler lost), 2 for a usage
error, 130 when interrupted. Running again after a stop grades only what was not recorded (see --regrade).
"""

from __future__ import annotations

import argparse
import sys
import warnings
from pathlib import Path

from course_grade.course import CONFIG_FILE, REPOSITORY_COURSE, Course, CourseError, use_this_environment
from course_grade.intake.submissions import assignments_in, check_submissions_folder
from course_grade.pipeline import EDITION, INSTRUCTOR, Pipeline, default_jobs
from course_grade.release.bundle import EditionError, build, plan_edition
from course_grade.report.build import PLATFORMS
from course_grade.report.roster import RosterError, read_roster
from course_grade.report.summary import render_summary
from course_grade.run.cluster.engine import LOCAL
from course_grade.untrusted import printable_lines

DEFAULT_SUBMISSION_TIMEOUT = 900


def parser() -> argparse.ArgumentParser:
    """The command line: common options are accepted before or after the step's name."""
    common = argparse.ArgumentParser(add_help=False)
    options = common.add_argument_group("options of every step")
    keep = argparse.SUPPRESS  # so that an option given before the step is not reset by the step's parser
    options.add_argument(
        "--course", type=Path, default=keep, help="the nbgrader course directory (default: grading/)"
    )
    options.add_argument(
        "--db", default=keep, help="the gradebook's SQLAlchemy URL (default: the course's sqlite file)"
    )
    options.add_argument(
        "--jobs", type=int, default=keep, help="worker processes (default: the number of cores)"
    )
    options.add_argument(
        "--cluster", default=keep, metavar="local|tcp://HOST:PORT|pool",
        help="where to autograde: local (default: a Dask LocalCluster of --jobs worker processes), the address "
        "of a running `dask scheduler` (its workers, on any machine with the course installed, grade), or pool "
        "(this machine's worker processes, without Dask)",
    )  # fmt: skip
    options.add_argument(
        "--regrade", action="store_true", default=keep,
        help="grade again the submissions graded before, unchanged, against the same course (default: skip them)",
    )  # fmt: skip
    options.add_argument(
        "--timeout", type=int, default=keep, help="seconds per cell (default: the course's config)"
    )
    options.add_argument(
        "--submission-timeout", type=float, default=keep,
        help=f"seconds per submission before its worker is stopped (default: {DEFAULT_SUBMISSION_TIMEOUT})",
    )  # fmt: skip
    options.add_argument(
        "--sandbox", choices=("auto", "on", "off"), default=keep,
        help="run each learner's kernel in the OS sandbox: auto (default: where this machine allows it), "
        "on (fail if it cannot), off",
    )  # fmt: skip
    options.add_argument(
        "--trusted-checks", action=argparse.BooleanOptionalAction, default=keep,
        help="rerun the instructor's tests outside the learner's kernel and grant a cell's points only when "
        "they pass too (default: on; off leaves nbgrader's scores alone, which a learner's code can fool)",
    )  # fmt: skip
    options.add_argument(
        "--library", choices=(EDITION, INSTRUCTOR), default=keep,
        help="what learners' code is graded against: edition (default: the learners' library of its "
        "assignment, no key it has not been given; the hidden tests run outside the learner's kernel only) "
        "or instructor (the instructor's library, every key in reach; the hidden tests run in the kernel too)",
    )  # fmt: skip
    options.add_argument(
        "--hide-hidden-tests", action=argparse.BooleanOptionalAction, default=keep,
        help="show no hidden test in the feedback, only which failed (default: on); scores are the same",
    )  # fmt: skip
    options.add_argument(
        "--similarity-against", type=Path, default=keep, metavar="DIR",
        help="also compare solutions with earlier submissions in DIR (DIR/STUDENT/ASSIGNMENT/NOTEBOOK.ipynb)",
    )  # fmt: skip
    options.add_argument(
        "--similarity-threshold", type=float, default=keep,
        help="flag pairs of solutions at least this similar, 0..1 (default: each assignment's own, measured on "
        "honest work and copies: benchmarks/flag_rates.py; 0.6 for one it does not know); scores never change",
    )  # fmt: skip
    main_parser = argparse.ArgumentParser(
        prog="course-grade",
        parents=[common],
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    steps = main_parser.add_subparsers(dest="step", required=True, metavar="STEP")
    for name, text, takes_submissions, writes_csv in [
        ("generate", "generate the learners' versions (nbgrader generate_assignment)", False, False),
        ("autograde", "autograde a folder of submissions in parallel", True, False),
        ("feedback", "render the feedback of every autograded submission", False, False),
        ("export", "write the grades as CSV", False, True),
        ("report", "write the HTML report and the per-question, Canvas and Moodle CSVs", False, False),
        ("run", "generate, autograde, feedback, export and report, then print a summary", True, True),
    ]:
        aliases = ["release"] if name == "generate" else []  # its old name
        step = steps.add_parser(name, aliases=aliases, parents=[common], help=text, description=text)
        if takes_submissions:
            step.add_argument(
                "submissions", type=Path,
                help="submitted/<student>/<assignment>/<notebook>.ipynb, or a folder of <student>.zip files",
            )  # fmt: skip
        default = "the assignments the submissions hold" if takes_submissions else "every assignment"
        step.add_argument("assignments", nargs="*", metavar="ASSIGNMENT", help=f"(default: {default})")
        if writes_csv:
            step.add_argument(
                "--to", type=Path, default=Path("grades.csv"), help="the CSV file (default: grades.csv)"
            )
        if name == "report":
            step.add_argument(
                "--to",
                type=Path,
                default=Path("."),
                help="the folder of the report (default: the current one)",
            )
        if name in ("report", "run"):
            step.add_argument(
                "--roster", type=Path, default=None,
                help="CSV: student_id and the platform's ids and names (see the README), for the platforms' CSVs",
            )  # fmt: skip
            step.add_argument(
                "--lms", action="append", choices=sorted(PLATFORMS), default=None,
                help="write this platform's gradebook CSV (repeatable; default with --roster: all of them)",
            )  # fmt: skip
    bundle = steps.add_parser(
        "bundle", parents=[common], help="build the learners' edition an instructor hands out",
        description="the learners' notebooks, fixtures and a library holding no key of an assignment not "
        "published; OUT/edition.json records what it holds",
    )  # fmt: skip
    bundle.add_argument("out", type=Path, help="an empty or new folder")
    bundle.add_argument("assignments", nargs="*", metavar="ASSIGNMENT", help="(default: every assignment)")
    bundle.add_argument(
        "--publish-keys", default=None, metavar="A,B",
        help="assignments whose keys (reference implementations) the edition holds (default: the course "
        "config's c.Edition.published_keys, else none)",
    )  # fmt: skip
    return main_parser


def _bundle(course: Course, args: argparse.Namespace, names: list[str]) -> int:
    """Build the learners' edition into args.out."""
    if args.publish_keys is not None:
        publish = [name.strip() for name in args.publish_keys.split(",") if name.strip()]
    else:
        publish = course.published_keys()
    notebooks = course.root.parent / "notebooks"
    try:
        edition = plan_edition(names, publish, notebooks)
        build(args.out, edition, notebooks)
    except EditionError as error:
        print(f"course-grade bundle: {error}", file=sys.stderr)
        return 1
    for note in edition.notes:
        print(note)
    keys = ", ".join(edition.published_keys) or "none"
    print(f"{args.out}: {', '.join(edition.assignments)}; answer keys published: {keys}")
    return 0


def terminal(line: str) -> None:
    """Print a line of the run: every control and format character a learner's string may carry escaped."""
    print(printable_lines(line), flush=True)


def main(argv: list[str] | None = None) -> int:
    """Run one step (or all of them) and return the exit status."""
    main_parser = parser()
    args = main_parser.parse_args(argv)
    if getattr(args, "lms", None) and getattr(args, "roster", None) is None:
        main_parser.error("--lms needs --roster FILE: the platform's ids of each student come from it")
    use_this_environment()
    warnings.filterwarnings("ignore", module="nbgrader")
    warnings.filterwarnings("ignore", message=".*not in session.*")
    try:
        course = Course.open(
            getattr(args, "course", default_course(Path.cwd())),
            getattr(args, "db", None),
            getattr(args, "timeout", None),
        )
        names = _assignments(course, args)
        if args.step == "bundle":
            return _bundle(course, args, names)
        if getattr(args, "roster", None) is not None:
            read_roster(args.roster)  # a bad roster stops the run before any grading, not after
        jobs = max(1, getattr(args, "jobs", default_jobs()))
        deadline = getattr(args, "submission_timeout", DEFAULT_SUBMISSION_TIMEOUT)
        with Pipeline(
            course, jobs, deadline, terminal,
            sandbox=getattr(args, "sandbox", "auto"), hide_hidden_tests=getattr(args, "hide_hidden_tests", True),
            trusted_checks=getattr(args, "trusted_checks", True), cluster=getattr(args, "cluster", LOCAL),
            regrade=getattr(args, "regrade", False), terminal=sys.stdout.isatty(),
            library=getattr(args, "library", EDITION),
        ) as pipeline:  # fmt: skip
            pipeline.similarity_against = getattr(args, "similarity_against", None)
            pipeline.similarity_threshold = getattr(
                args, "similarity_threshold", pipeline.similarity_threshold
            )
            return _step(pipeline, args, names)
    except (CourseError, RosterError) as error:
        print(f"course-grade: {printable_lines(str(error))}", file=sys.stderr)
        return 1
    except KeyboardInterrupt as interrupted:
        print(f"course-grade: interrupted{f'; {interrupted}' if str(interrupted) else ''}", file=sys.stderr)
        return 130


def default_course(here: Path) -> Path:
    """The course `course-grade` works on without --course: `here`, when it is a course directory (as
    nbgrader takes its working folder), else this repository's grading/."""
    if (here / CONFIG_FILE).is_file() and (here / "source").is_dir():
        return here
    return REPOSITORY_COURSE


def _assignments(course: Course, args: argparse.Namespace) -> list[str]:
    """The assignments a step works on: those named; else, for a folder of submissions, those it holds
    (never one nobody submitted, which would put zeros in grades.csv); else every assignment."""
    submissions: Path | None = getattr(args, "submissions", None)
    if submissions is None or args.assignments:
        if submissions is not None:
            check_submissions_folder(course, submissions)
        return course.select(args.assignments)
    check_submissions_folder(course, submissions)
    held = assignments_in(submissions, course.assignments())
    if not held:
        raise CourseError(
            f"{submissions} holds no submission of this course's assignments ({', '.join(course.assignments())})"
        )
    print(f"grading {', '.join(held)}: the assignments these submissions hold", flush=True)
    return held


def _step(pipeline: Pipeline, args: argparse.Namespace, names: list[str]) -> int:
    """Run the step the command line names."""
    if args.step in ("generate", "release"):
        pipeline.generate(names)
    elif args.step == "feedback":
        pipeline.feedback(names)
    elif args.step == "export":
        pipeline.export(names, args.to)
    elif args.step == "report":
        pipeline.report(names, args.to, args.roster, _platforms(args))
    elif args.step == "autograde":
        outcomes = pipeline.autograde(args.submissions, names)
        terminal(
            "\n" + render_summary(outcomes, pipeline.skipped, pipeline.sandboxed, pipeline.trusted_checks)
        )
    else:
        pipeline.start()  # the workers start (and import nbgrader) while the learners' versions are generated
        pipeline.pool()  # and this machine's, for the feedback
        pipeline.generate(names)
        outcomes = pipeline.autograde(args.submissions, names)
        pipeline.feedback(names, [(outcome.student, outcome.assignment) for outcome in outcomes])
        pipeline.export(names, args.to)
        pipeline.report(names, args.to.parent, args.roster, _platforms(args))
        terminal(
            "\n" + render_summary(outcomes, pipeline.skipped, pipeline.sandboxed, pipeline.trusted_checks)
        )
    return 0


def _platforms(args: argparse.Namespace) -> tuple[str, ...]:
    """The platforms whose CSV to write: those named by --lms, or all of them when only --roster is given."""
    if args.roster is None:
        return ()
    return tuple(dict.fromkeys(args.lms or sorted(PLATFORMS)))


if __name__ == "__main__":
    sys.exit(main())
