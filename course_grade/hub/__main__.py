"""`python -m course_grade.hub`: the demo hub (course_grade.hub.demo), as `python3 course.py hub` runs it."""

from __future__ import annotations

import sys

from course_grade.hub.demo import main

if __name__ == "__main__":
    sys.exit(main())
