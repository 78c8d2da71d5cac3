"""course-grade: the instructor's grading pipeline, on top of nbgrader's commands, conventions and gradebook.

    course-grade run SUBMISSIONS        release, autograde (in parallel), feedback, grades.csv, summary

`grading/` is the nbgrader course directory. Learners' code runs only in isolated scratch copies of it,
in worker processes; the one process that started them is the only one that writes to the gradebook.

The sub-packages follow a submission: `release` (the learners' notebooks and edition), `intake` (take it
in, check it), `run` (grade it in a worker), `score` (check and record its points), `report` (summary,
feedback, grade files, the class's report), and `selftest` (a pack of hostile submissions). `cli` and
`pipeline` drive them; `tests/test_layers.py` holds the order of their imports. This package imports
nothing at its top: the trusted checks' learner process imports it.
"""
