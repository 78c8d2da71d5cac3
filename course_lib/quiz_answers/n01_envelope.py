"""Notebook 01's checkpoint quiz: the answers and the idea each checks (a key: see course_lib.quiz)."""

from course_lib.quiz import Key

ANSWERS = (
    Key("C", "when a message has tool calls, the calls win: the text is commentary and there is no final envelope"),
    Key(["C"], "an id is blank when nothing is left once it is stripped, whatever the whitespace; an id that is "
               "not blank comes back unchanged, spaces included"),
    Key("A", "dict(raw) is a shallow copy: the nested lists and dicts are shared with the input"),
    Key("D", "$ also matches just before a trailing newline; fullmatch matches the whole string or nothing"),
    Key(["D"], "the parser checks shape only: whether a tool was offered, the caller may use it, or an id is new "
               "is for the dispatcher, the loop and the security checks"),
)  # fmt: skip
