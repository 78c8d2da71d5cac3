"""How a submission is run at scale: one Dask task per submission, on a local or a remote cluster.

`bundle` (what travels with a task), `task` (what a Dask worker runs: the grading, under a watchdog child
of its own), `engine` (the cluster, the submission of tasks and the faults it reports). The `course-grade`
process alone records what comes back (`course_grade.pipeline`).
"""
