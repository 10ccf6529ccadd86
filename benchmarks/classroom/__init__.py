"""The class load benchmark's parts, one concern each; benchmarks/class_load.py runs them.

- hub.py: the class's hub, started as `make class` starts it, and stopped with its users;
  the Room a scenario acts in.
- learners.py: a learner signing in, spawning, pulling the course, running a notebook
  through its own kernel.
- memory.py: each learner's memory and the hub's, sampled from /proc.
- Scenarios, each a function of the Room returning what it saw: isolation.py (the
  attempts on another learner), browser.py (a learner in Chromium), course_update.py
  (a pull across a new course commit), idle.py (culling), faults.py (the limits, and a
  runaway and a busy loop against them), progress.py (the teacher's progress page).
- report.py: the Outcome and the printed table.

A new scenario is a module here with a function of the Room; class_load.py calls it in
its list of scenarios, keeps its result on the Outcome, and report.py prints its lines.
"""
