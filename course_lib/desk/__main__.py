"""`python -m course_lib.desk`: run the misbehaving-model pack against the reference harness, print the table."""

import sys

from course_lib.desk.cli import main

sys.exit(main())
