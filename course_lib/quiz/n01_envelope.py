"""The checkpoint questions of notebook 01 (the envelope), as the learner reads them.

The answers are a key: `course_lib.quiz_answers.n01_envelope`.
"""

from course_lib.quiz.question import Question

QUESTIONS = (
    Question(
        'A Chat Completions message has `"content": "Let me check."` and two entries in `tool_calls`. '
        "What does `chat_message_to_envelopes` return?",
        "choice",
        (
            "One final envelope carrying the text, then two call envelopes",
            "One final envelope: the text is the answer",
            "Two call envelopes, in the order of `tool_calls`, and no final envelope",
            "Two call envelopes, then one final envelope carrying the text",
        ),
    ),
    Question(
        "Which of these ids does `parse_envelope` accept?",
        "choices",
        ('`""`', '`"   "`', '`" c1 "`', '`"\\u2003"` (an em space)'),
    ),
    Question(
        'After `raw = {"kind": "call", "id": "c1", "name": "x", "arguments": {"ids": ["a"]}}`, '
        '`p = dict(raw)` and `p["arguments"]["ids"].append("b")`, what is `raw["arguments"]["ids"]`?',
        "choice",
        ("`['a', 'b']`", "`['a']`", "`['b']`", "A `KeyError` is raised"),
    ),
    Question(
        'What do `re.match(r"^[a-zA-Z0-9_-]{1,64}$", "read_note\\n")` and '
        '`re.fullmatch(r"[a-zA-Z0-9_-]{1,64}", "read_note\\n")` return?',
        "choice",
        ("A match, then a match", "`None`, then `None`", "`None`, then a match", "A match, then `None`"),
    ),
    Question(
        '`parse_envelope` accepts `{"kind": "call", "id": "call_3", "name": "read_note", '
        '"arguments": {"note_id": "../../etc/passwd"}}`. What does that establish?',
        "choices",
        (
            "`read_note` is a tool offered in this request",
            "The caller may read that document",
            "`call_3` was not used in an earlier turn",
            "The envelope has the documented shape, so the next layer can inspect it",
        ),
    ),
)
