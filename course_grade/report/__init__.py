"""How results are reported: the run's summary, the learners' feedback, the class's report and grade files.

In: what scoring recorded (the gradebook, the autograded notebooks, the notes) and, for platforms, a roster.
Out: the summary table that ends a run, each learner's feedback with its notes on top, grades.csv, the
class's report (HTML), per-question statistics, gradebook CSVs learning platforms import, and the copies
flagged for review.

summary      the table that ends a run: students, notebooks, the score distribution, every problem
feedback     the learner's feedback: nbgrader's HTML with the grading notes on top
grades_csv   grades.csv: nbgrader's CSV export, properly quoted (an nbgrader export plugin)
class_grades the gradebook read once into plain rows (cells, submissions, students)
analytics    per-question statistics over those rows: pure functions
failures     which test cells failed, and whether in their hidden or visible tests (autograded notebooks)
roster       the roster file: student id -> the platform's ids and names
exports      per-question CSV, Canvas and Moodle gradebook CSVs
plots        histograms as inline SVG (matplotlib)
page         the self-contained HTML report
build        the report and the exports for `course-grade report` and `course-grade run`
similarity   copies flagged for review, never a change of score
"""
