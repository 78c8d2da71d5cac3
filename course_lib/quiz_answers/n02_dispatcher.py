"""Notebook 02's checkpoint quiz: the answers and the idea each checks (a key: see course_lib.quiz)."""

from course_lib.quiz import Key

ANSWERS = (
    Key(9, "UTF-8 takes one byte for an ASCII character and three for the euro sign"),
    Key("B", "the request's size limit counts the bytes of its UTF-8 encoding, not its characters"),
    Key("C", "plain json.loads lets the last repeated key win; the dispatcher refuses any repeated key"),
    Key("D", "set() accepts any iterable, so a JSON array of the two key names passes the key check, and indexing "
             "it by name raises TypeError instead of a refusal"),
    Key("B", "deep nesting makes json.loads raise RecursionError, a RuntimeError: catch it, or count the depth "
             "first, and refuse with a ValueError"),
    Key(["A", "B", "C"], "only an offered tool, spelled exactly, with exactly its arguments runs: adding a tool "
                         "removes no refusal"),
)  # fmt: skip
