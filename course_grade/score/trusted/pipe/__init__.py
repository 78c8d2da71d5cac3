"""The pipe between the trusted side and the learner's process, and the learner half that runs there.

In: the learner's code and the trusted side's calls, as length-prefixed JSON over stdin/stdout.
Out: the answers (values as data, remote references, exceptions by class name).

protocol  length-prefixed JSON messages with a size limit and a deadline
codec     Python values as JSON data: an object graph with remote references
rpc       calls across the pipe, both ways, to any depth
objects   the learner's classes and instances seen from the trusted side: proxies
relay     the trusted side's stand-in, reached from the learner's process through the pipe
learner   the learner's process itself (`python -I -m course_grade.score.trusted.pipe.learner`)

This package is what a learners' library carries of `course_grade` (`release.library`): it imports nothing
of the grader but itself and `course_lib.errors`, and nothing at its top.
"""
