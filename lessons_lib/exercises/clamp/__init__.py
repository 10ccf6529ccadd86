"""The exercise "Check your Clamp01": Part 1 (edges.py, check_edge_test) and Part 2
(suite.py, check_my_checks); the answers in answers.py. Only this exercise imports hypothesis."""
