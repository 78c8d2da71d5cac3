"""How results are reported: the class's report (HTML), its statistics, and grade files learning platforms import.

grades      the gradebook read once into plain rows (cells, submissions, students)
analytics   per-question statistics over those rows: pure functions
failures    which test cells failed, and whether in their hidden or visible tests (autograded notebooks)
deadlines   due dates, extensions and nbgrader's late-penalty plugin
roster      the roster file: student id -> the platform's ids and names
exports     per-question CSV, Canvas and Moodle gradebook CSVs
plots       histograms as inline SVG (matplotlib)
page        the self-contained HTML report
build       all of the above for `course-grade report` and `course-grade run`
"""
