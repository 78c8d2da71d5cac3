"""The checkpoint questions of notebook 02 (the dispatcher), as the learner reads them.

The answers are a key: `course_lib.quiz_answers.n02_dispatcher`.
"""

from course_lib.quiz.question import Question

QUESTIONS = (
    Question('`s = "PEN€€"`. What is `len(s.encode("utf-8"))`?', "number"),
    Question(
        "Which length does the dispatcher compare with `MAX_REQUEST_BYTES`?",
        "choice",
        (
            "`len(request)`, the characters",
            '`len(request.encode("utf-8"))`, the bytes',
            "The number of keys",
            "The nesting depth",
        ),
    ),  # fmt: skip
    Question(
        "What does `dispatch` do with "
        '`\'{"name": "shell", "name": "stock_lookup", "arguments": {"sku": "PEN"}}\'`?',
        "choice",
        (
            "Runs `stock_lookup`: the last `name` wins, as in plain `json.loads`",
            "Runs `shell`: the first `name` wins",
            "Refuses it: `duplicate key: 'name'`",
            "Raises `KeyError`",
        ),
    ),
    Question(
        'Why must `type(call) is dict` come before `set(call) == {"name", "arguments"}`?',
        "choice",
        (
            "It is faster",
            "The order does not matter",
            "`set()` of a `dict` raises `TypeError`",
            '`set()` accepts any iterable: the JSON array `["name", "arguments"]` passes, and `call["name"]` '
            "then raises `TypeError` instead of a refusal",
        ),
    ),
    Question(
        "A request of 1,000 nested `[` followed by 1,000 `]` is 2,000 bytes. "
        "What does `json.loads` raise on it in Python 3.11?",
        "choice",
        (
            "`json.JSONDecodeError`, a `ValueError`",
            "`RecursionError`, which is not a `ValueError`",
            "Nothing: it returns nested lists",
            "`MemoryError`",
        ),
    ),  # fmt: skip
    Question(
        "After adding `price_lookup` to the table, which of these must be refused?",
        "choices",
        (
            '`{"name": "shell", "arguments": {"sku": "PEN"}}`',
            '`{"name": "price_lookup", "arguments": {"sku": "PEN", "admin": true}}`',
            '`{"name": "Price_Lookup", "arguments": {"sku": "PEN"}}`',
            '`{"name": "price_lookup", "arguments": {"sku": "BOOK"}}`',
        ),
    ),
)
