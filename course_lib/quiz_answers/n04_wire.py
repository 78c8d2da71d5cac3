"""Notebook 04's checkpoint quiz: the answers and the idea each checks (a key: see course_lib.quiz)."""

from course_lib.quiz import Key

ANSWERS = (
    Key("D", "Responses tools are flat: name, description, parameters and strict sit next to type"),
    Key(4, "the API keeps no memory: the next request replays the user's message, the assistant message as "
           "returned, and one tool message per call id"),
    Key("B", "in strict mode every property is required; an optional one becomes nullable instead"),
    Key("A", "fragments are pieces of one string: decode once the stream says the call is complete"),
    Key("B", "a chained request continues from the response that asked for the calls it answers"),
    Key("D", "private data stays out of the provider's storage only when no response is stored; every request "
             "then carries the whole history"),
)  # fmt: skip
