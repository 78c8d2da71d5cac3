"""The checkpoint quizzes' answers, one module per notebook: keys, left out of a learners' edition until published.

Each module is listed in `course_grade.release.keys.KEYS` under its assignment. `course_lib.quiz.answers` finds
it at run time; nothing else in the library imports it.
"""
