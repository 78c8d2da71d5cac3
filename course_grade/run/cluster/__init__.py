"""How a submission is run at scale: one Dask task per submission, on a local or a remote cluster.

In: a job, its settings and its payload (the assignment's course files and the submission, as bytes).
Out: the job's result, back to the `course-grade` process, which alone records it (`course_grade.pipeline`).

`payload` (what travels with a task), `task` (what a Dask worker runs: the grading, under a watchdog child
of its own), `engine` (the cluster, the submission of tasks and the faults it reports).
"""
