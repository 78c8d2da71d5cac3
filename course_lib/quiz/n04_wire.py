"""The checkpoint questions of notebook 04 (the wire), as the learner reads them.

The answers are a key: `course_lib.quiz_answers.n04_wire`.
"""

from course_lib.quiz.question import Question

QUESTIONS = (
    Question(
        'You send `{"type": "function", "function": {"name": "get_weather", ...}}` to `POST /v1/responses`. '
        "What happens?",
        "choice",
        (
            "It is accepted: both APIs take both shapes",
            "The SDK converts it to the flat shape",
            "The tool is ignored and the model answers in text",
            "HTTP 400: Responses tools are flat, `name` and `parameters` sit next to `type`",
        ),
    ),
    Question(
        "In the Chat Completions style, the model's first turn holds two calls, `call_1` and `call_2`. "
        "How many `messages` does the second request carry?",
        "number",
    ),
    Question(
        'Is `{"type": "object", "properties": {"q": {"type": "string"}, "limit": {"type": "integer"}}, '
        '"required": ["q"], "additionalProperties": false}` strict-compatible, and how do you fix it without '
        "making `limit` mandatory for the user?",
        "choice",
        (
            "It is strict-compatible as it is",
            'No: make `limit`\'s type `["integer", "null"]` and add it to `required`',
            "No: remove `additionalProperties`",
            "No: give `limit` a `default`",
        ),
    ),
    Question(
        "A chat stream gives, for tool call index 0, the fragments `'{\"ci'`, `'ty\": \"Pa'`, `'ris\"}'`, then "
        'a chunk with `finish_reason: "tool_calls"`. When may your code call `json.loads`?',
        "choice",
        (
            "Once, after the `finish_reason` chunk, on the fragments joined",
            "On each fragment as it arrives",
            "As soon as the joined text ends with `}`",
            "Never: the SDK decodes it",
        ),
    ),
    Question(
        "A loop chains with `previous_response_id`. `resp_1` asked for `call_1`, `resp_2` for `call_2`. "
        "What happens if the third request names `resp_1` instead of `resp_2`?",
        "choice",
        (
            "It works the same: both are in the same conversation",
            "HTTP 400: no tool call found for the output of `call_2`",
            "The provider continues from `resp_2` anyway",
            "HTTP 404: `resp_1` is gone",
        ),
    ),
    Question(
        "A support assistant reads customers' card numbers. Which field do you set on every request?",
        "choice",
        (
            '`include: ["reasoning.encrypted_content"]`',
            "`previous_response_id`",
            "`metadata`",
            "`store: false`",
        ),
    ),  # fmt: skip
)
