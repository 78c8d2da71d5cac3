"""Notebook 03's checkpoint quiz: the answers and the idea each checks (a key: see course_lib.quiz)."""

from course_lib.quiz import Key

ANSWERS = (
    Key(2, "one request per model turn: every call of a turn is answered together in the next request"),
    Key(3, "every call id gets a tool message of its own, after the assistant turn that made the calls"),
    Key(4, "with one call per turn, N calls take N + 1 requests: one per call and one for the answer"),
    Key("C", "reasoning items returned with tool calls must be passed back with the calls' outputs: extend the "
             "input with the whole output"),
    Key("A", "a tool_choice that forces a function on every request leaves the model no way to answer in text: "
             "force the first request only"),
    Key("C", "calls of one turn may depend on each other: run them one at a time, in the model's order"),
)  # fmt: skip
