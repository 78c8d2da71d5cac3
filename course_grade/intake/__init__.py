"""How a submission is taken in: from a folder or zip files to the (student, assignment) pairs to grade.

In: a folder of submissions (nbgrader's `submitted/` layout, or one zip file per student) and the course.
Out: the submissions copied into `<course>/submitted/`, the pairs to grade (those already graded, unchanged,
skipped), and, for each one, what is wrong with it before it runs, as notes.

submissions  take a folder or zip files in, refusing student ids and zip entries that could escape
files        file operations that hold up against what a learner leaves behind (links, odd modes)
resume       the mark a graded submission leaves, so that a run again skips it
checks       a submitted notebook against the assignment's definition: missing, renamed, edited cells
cleaning     execution tags removed, and suspicious cells flagged for review
"""
