"""How a submission is scored: nbgrader's points, checked, penalised when late, and recorded once.

In: an autograded submission (nbgrader's results from the worker's scratch gradebook, the autograded
notebooks) and the instructor's source notebooks.
Out: the scores the real gradebook records (one writer), each cell's points kept only when the trusted
checks agree, late penalties applied, and the notes that say why a point was withheld.

submission_grades  nbgrader's automatic results for one submission, as plain data
gradebook          the template gradebook the workers start from, and the one writer of the real one
late               due dates, extensions and late penalties as nbgrader has them
hidden             hidden tests: where they are in a cell, which one failed, and what feedback may show of them
trusted/           the instructor's tests run in the grader's process against the learner's code in its own
                   (its `pipe/` sub-package, the pipe protocol and the learner half, is all the learner's side
                   gets)

This package and `trusted` import nothing at their top: the learner's process imports `trusted.pipe`.
"""
