"""Differential hidden tests: every graded part judged against its reference over its contract's domain.

A hidden test cell's last lines call `course_lib.oracle.against_reference(part, family, answer)`; where the
grader installs `judge` (the trusted checks, the test suite's forked shells, the mutation runs), the learner's
answer and the reference run on the same generated examples of that family (hypothesis, fixed seed and budget),
and what the part's contract fixes is compared. The modules: `contract` (parts, families, observations),
`registry` (one module of parts per notebook, `nNN_*`), `judge` (drawing, comparing, shrinking).
"""
