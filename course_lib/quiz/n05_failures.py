"""The checkpoint questions of notebook 05 (failures), as the learner reads them.

The answers are a key: `course_lib.quiz_answers.n05_failures`.
"""

from course_lib.quiz.question import Question

QUESTIONS = (
    Question(
        "A tool raises an unexpected `KeyError`. What does the model receive?",
        "choice",
        (
            "The traceback",
            "A tool result naming only the exception type; the details go to the server-side log",
            "Nothing: the loop stops",
            "The `KeyError`'s message",
        ),
    ),
    Question(
        'What does `check_args(True, {"type": "integer"})` return?',
        "choice",
        (
            "`[]`",
            "`['$: expected integer, got bool']`",
            "`['$: expected integer, got int']`",
            "It raises `TypeError`",
        ),
    ),  # fmt: skip
    Question(
        'What does `check_args(1.0, {"enum": [1, 2]})` return?',
        "choice",
        (
            "`['$: expected integer, got float']`",
            "`['$: not one of [1, 2]']`",
            "It raises `ValueError`",
            "`[]`",
        ),
    ),  # fmt: skip
    Question(
        'The model calls `delete_note` with `\'{"note_id": "all"}\'`, and your `confirm` would say yes to '
        "anything. How many times is the human asked?",
        "number",
    ),
    Question(
        "A request offers `get_weather` and `average`. The model calls `delete_note`, which your toolbox does "
        "have. What comes back?",
        "choice",
        (
            '`{"error": "unknown tool \'delete_note\'", "available_tools": ["average", "get_weather"]}`',
            "The result of `delete_note`, once the human confirms",
            "An error listing every tool of the toolbox",
            '`{"error": "invalid arguments", ...}`',
        ),
    ),
    Question(
        "You set `max_tool_calls` to 3 on a Responses request. Does that stop a model that calls your "
        "`get_weather` function 10 times across the conversation?",
        "choice",
        (
            "Yes: the provider refuses the fourth call",
            "Yes, but only within one turn",
            "No: it limits calls to built-in tools; bound your functions in your loop",
            "No: it only limits parallel calls",
        ),
    ),
)
