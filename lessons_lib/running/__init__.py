"""Calling a learner's code safely: shared by the doctor, the explorers and the exercises."""
