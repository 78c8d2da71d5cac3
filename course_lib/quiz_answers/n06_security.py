"""Notebook 06's checkpoint quiz: the answers and the idea each checks (a key: see course_lib.quiz)."""

from course_lib.quiz import Key

ANSWERS = (
    Key("B", "an operator is checked before its operands are computed, so a huge power is refused, not computed"),
    Key("D", "the offered-tools check comes first: nothing is parsed or confirmed for a tool the request did not "
             "offer"),
    Key("A", "only True is a yes: a truthy answer such as a non-empty string is a no"),
    Key("C", "a kernel handles a click only when no cell runs, so a confirm that waited inside the loop would hang"),
    Key("D", "approval runs exactly the recorded, frozen call, once"),
    Key("A", "least privilege first: a label is more text for the model; offer only the tools the task needs"),
)  # fmt: skip
