"""How a submission is run: one job per submission, in a worker process, against the learners' library.

In: the (student, assignment) pairs intake took in, the course, and the settings read once (`jobs.Settings`).
Out: per submission, an `AutogradeResult` (nbgrader's results, the autograded notebooks, the notes, the
trusted verdicts) or a `FeedbackResult`, back to the one process that records them.

jobs       the jobs and their results: plain data that travels to a worker and back
workers    what a worker process does with a job (the function is chosen by the job's type)
pool       worker processes that survive their workers: a dead or stuck one is replaced
hardened   nbgrader's preprocessors, hardened where a hostile or broken submission stops them
kernels    the kernel managers grading uses: ipc sockets, the sandbox if asked
sandbox    an OS sandbox for one learner's code (namespaces and rlimits)
cores      one core per worker
costs      how long each assignment takes, so that the longest jobs start first
execution  how an autograded notebook ran, as notes
cluster/   the same jobs as Dask tasks, on a local or a remote cluster
"""
