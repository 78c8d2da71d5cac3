"""The checkpoint questions of notebook 07 (the capstone), as the learner reads them.

The answers are a key: `course_lib.quiz_answers.n07_capstone`.
"""

from course_lib.quiz.question import Question

QUESTIONS = (
    Question(
        "The model proposes 50 `search_orders` calls in one turn, then answers. How many tools run?",
        "number",
    ),
    Question("In that run, how many audit entries are written?", "number"),
    Question("In that run, how many model requests are sent?", "number"),
    Question(
        "An approver returns `1`. What does `ask_approver` return?",
        "choice",
        (
            '`(True, "approved")`: `1 == True`',
            '`(False, "the approver answered 1, not True")`',
            "It raises `TypeError`",
            '`(None, "no answer")`',
        ),
    ),
    Question(
        "`same_call_forever` proposes the same lookup on every turn. After how many requests does the run "
        "end with `repeated_call`?",
        "number",
    ),
    Question(
        "Why does the harness redact a tool result *before* the model reads it, and not only in the audit log?",
        "choice",
        (
            "To keep the audit log small",
            "The provider requires it",
            "It is faster",
            "The model is the path out: what it never sees, it cannot copy into a call",
        ),
    ),
)
