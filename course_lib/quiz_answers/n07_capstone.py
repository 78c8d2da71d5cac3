"""Notebook 07's checkpoint quiz: the answers and the idea each checks (a key: see course_lib.quiz)."""

from course_lib.quiz import Key

ANSWERS = (
    Key(8, "at most MAX_CALLS_PER_TURN calls of one turn run; the rest are skipped"),
    Key(50, "every proposed call is audited, the skipped ones too"),
    Key(2, "every call id is answered, skipped calls included, so the conversation goes on to the final answer"),
    Key("B", "in Python 1 == True, so only `is True` tells a yes from an answer that merely equals one"),
    Key(4, "the proposal that exceeds max_repeats ends the run at once, and it does not run"),
    Key("D", "the model is the path out: what it never sees, it cannot copy into a call"),
)  # fmt: skip
