"""Two editions from one repository: the instructor's kit (this repository, every answer in view) and the
learners' edition an instructor hands out (`course-grade bundle`), which holds no key of an open assignment.

- `keys`: which course_lib modules are the key (reference implementation) of which assignment, and which
  assignments build on another's key: the one declaration of the boundary.
- `imports`: what a module of the library and a notebook need, read from their imports (ast).
- `bundle`: the learners' edition: notebooks, fixtures, a library without unpublished keys, a README.
"""
