"""Trusted verdicts: the instructor's tests run in the grader's process, the learner's code in its own.

After nbgrader has graded a submission, `trusted_verdicts` runs every covered test cell again: the learner's
code (its solution cells and other code, with the instructor's read-only cells restored and the tests left
out) runs in a separate process started from a clean environment (optionally inside the sandbox, through
`wrap`), and the instructor's test cells, taken from the instructor's source notebook, run in this process,
where every graded name is a proxy to that process (a function, or a class whose instances stay there and
are used through proxies). Values cross the pipe as JSON data; exceptions cross
by class name and are rebuilt only from an allow-list; the stand-in of the loop exercises runs here and
the learner reaches it through a relay. A cell keeps nbgrader's points only when the trusted check passes
too; a cell nbgrader passed and the trusted check failed scores 0 and is noted "possible tampering".

What this guarantees: whatever the learner's code does to its own kernel or process (cell tags, input
transformers, a rebound `assert_own_work`, patched builtins, a forged gradebook) cannot make a covered
test cell pass; only functions that answer the instructor's tests correctly, across the pipe, earn points.
What it does not: the trace of calls into the reference is made in the learner's process and can be
suppressed there (it only flags for review); the own-work check is judged twice, on the learner process's
report and on the submitted source read here (`static`), so a forged report changes nothing, but code that
reaches the reference only at run time, through objects it is handed (a method's `__globals__`, say) or
computed names, can pass it; a trusted callback's changes to objects the learner
holds a copy of are not seen by the learner; without the sandbox the learner's process has the grader's
rights (it cannot change a verdict, but it can touch files); cells of `coverage.UNVERIFIED_*`
keep nbgrader's score alone (none today); a learner class's own-work check reads its methods from the
source and the learner's report, but not its methods' default values.

In: a submission's autograded results and notebooks, and the instructor's source notebooks. Out: a verdict
per test cell, which the parent applies to the scores it recomputes. The learner's side is `pipe/` (the
pipe protocol and the learner half), the one part of `course_grade` a learners' library carries.

The learner's process imports this package: keep it free of imports (nbgrader takes seconds to load).
Public API: `course_grade.score.trusted.grading.trusted_verdicts` (the worker calls it) and `apply_verdicts`
(the parent, after rescoring), `reconcile`,
`course_grade.score.trusted.runner.check_notebook`, `course_grade.score.trusted.session.Wrap`.
"""
