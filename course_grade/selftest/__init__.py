"""The self-test pack: hostile and broken submissions that the grader must score as it says.

In: an assignment's instructor and learner versions.
Out: a pack of submissions in nbgrader's submitted layout (`hostile`), one student per case, each stating
the score and the notes its learner must get; `course-grade run PACK` grades it.

hostile   the cases, and `python -m course_grade.selftest.hostile PACK` to write them
attacks   the attacks' code on the grader and on classmates, as a hostile solution cell holds it
bypasses  own-work cases: a first exercise answered by the reference through a hidden route
"""
