"""A class on JupyterHub: the folders, environments and accounts one machine's hub of this course needs.

In: the course (this repository, its `.venv`), the names of an instructor and the learners, the assignments
handed out. Out: a hub folder every account can enter (`layout.lay_out_hub`), holding two Python
environments (the learners' with the learners' edition only, the instructor's with the whole course), the
exchange nbgrader shares between them, the instructor's course directory, the Jupyter config of each role,
and `hub.json`, which `hub/jupyterhub_config.py` reads. `python -m course_grade.hub` starts one on loopback
for trying it (`python3 course.py hub`); the tests start the same hub.
"""
