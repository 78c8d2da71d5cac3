"""The checkpoint questions of notebook 03 (the loop), as the learner reads them.

The answers are a key: `course_lib.quiz_answers.n03_loop`.
"""

from course_lib.quiz.question import Question

QUESTIONS = (
    Question(
        "A model answers the first request with three tool calls and the second with text. "
        "How many requests does the loop send?",
        "number",
    ),
    Question('In that run, how many `role: "tool"` messages does the second request carry?', "number"),
    Question("The same three lookups with `parallel_tool_calls=False`: how many requests?", "number"),
    Question(
        "Your Responses loop appends only the `function_call` items of each output to the input list. "
        "It works against `server`. What happens against `thinker`?",
        "choice",
        (
            "It works the same",
            "It loops until `MaxStepsExceeded`",
            "HTTP 400 naming the `reasoning` item it left out",
            "The model answers in text at once",
        ),
    ),
    Question(
        'Your chat loop sends `tool_choice={"type": "function", "function": {"name": "get_weather"}}` on every '
        "request, with `max_steps=3`. What happens?",
        "choice",
        (
            "Three requests, then `MaxStepsExceeded`: the model never answers in text",
            "The model calls `get_weather` once, then answers",
            "HTTP 400: `tool_choice` may not name a function",
            "The loop never ends",
        ),
    ),
    Question(
        'A model\'s turn holds `create_file("a.txt")` and `read_file("a.txt")`. May your loop run them on two '
        "threads?",
        "choice",
        (
            "Yes: calls of one turn are independent",
            "Yes, if the read retries on failure",
            "No: run them one at a time, in the order the model listed them",
            "Only under the Responses API",
        ),
    ),  # fmt: skip
)
