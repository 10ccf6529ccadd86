"""The class load run's report (benchmarks/classroom/report.py) says what each answer was."""

from benchmarks.classroom.report import attempt_verdict


def test_an_isolation_attempt_is_refused_allowed_or_found_no_server():
    assert attempt_verdict(True, "403") == "refused"
    assert attempt_verdict(False, "200") == "ALLOWED"
    # The other's server was not running: nothing refused it, and nothing was reached.
    assert attempt_verdict(False, "404 at /hub/user/learner2/lab") == "NOT REFUSED: no server there"
