"""course-grade: the instructor's grading pipeline, on top of nbgrader's commands, conventions and gradebook.

    course-grade run SUBMISSIONS        release, autograde (in parallel), feedback, grades.csv, summary

`grading/` is the nbgrader course directory. Learners' code runs only in isolated scratch copies of it,
in worker processes; the one process that started them is the only one that writes to the gradebook.
"""
