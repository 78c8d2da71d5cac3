"""Notebook 05's checkpoint quiz: the answers and the idea each checks (a key: see course_lib.quiz)."""

from course_lib.quiz import Key

ANSWERS = (
    Key("B", "an unexpected failure reaches the model as its type only; the details stay in the server-side log"),
    Key("B", "a bool is not an integer in JSON Schema, though Python's True is an int"),
    Key("D", "enum compares values as JSON does: a float equal to an integer is that integer"),
    Key(0, "the schema check comes before the human: invalid arguments never reach a confirmation"),
    Key("A", "a call outside the request's offered tools is refused first, and the answer names only the offered "
             "tools, never the rest of the registry"),
    Key("C", "max_tool_calls limits built-in tools only; your own functions are bounded by your loop"),
)  # fmt: skip
