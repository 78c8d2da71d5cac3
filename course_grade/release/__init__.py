"""How assignments are released: the learners' notebooks, and the learners' edition of the library.

In: the instructor's source notebooks (`grading/source/`) and the whole `course_lib`, keys included.
Out: the learners' versions of the notebooks (nbgrader's generate_assignment with `stubs.NamedStubs`), the
learners' edition an instructor hands out (`course-grade bundle`), which holds no key of an open assignment,
and, for grading, the library each assignment's submissions are graded against (`library`).

Two editions come from one repository: the instructor's kit (this repository, every answer in view) and the
learners' edition.

- `keys`: which course_lib modules are the key (reference implementation) of which assignment, and which
  assignments build on another's key: the one declaration of the boundary.
- `imports`: what a module of the library and a notebook need, read from their imports (ast).
- `bundle`: the learners' edition: notebooks, fixtures, a library without unpublished keys, a README.
- `template`: the files the edition carries besides notebooks and library (README, `edition.py`, pyproject).
- `library`: the learners' edition of one assignment, as files a grading job lays out.
- `stubs`: nbgrader's ClearSolutions with a stub that names its exercise.
"""
