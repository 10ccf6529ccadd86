"""report: the Report's text and HTML, and what a clean bill of health says was checked."""

from lessons_lib import Cube
from lessons_lib.doctor.examination import check_function
from lessons_lib.doctor.findings import LESSON_SECTIONS
from tests.doctor_catalogue import WRONG
from tests.learner_functions import cube, function, save_and


def test_the_text_report_names_the_problem_the_evidence_and_the_fix():
    text = str(check_function(WRONG[0][1], cube))
    assert text.startswith(
        "CubeStarter: 1 problem found (checked in float64)\n[chain-rule] backward ignores grad_out"
    )
    assert "at x[0, 0] = -2.5 (grad_out 1.96): expected 36.75, got 18.75" in text
    # -3.92 * 3 * 2.5**2: the true gradient for the doubled and negated grad_out
    assert "negated, at x[0, 0] = -2.5 (grad_out -3.92): expected -73.5, got 18.75" in text
    assert "How to fix it: Multiply by grad_out" in text
    assert LESSON_SECTIONS["chain-rule"] in text


def test_the_html_report_names_the_problem_in_a_box():
    page = check_function(WRONG[0][1], cube)._repr_html_()
    assert "CubeStarter: 1 problem found" in page and "(chain-rule)" in page
    assert "expected 36.75, got 18.75" in page
    assert "Read more:" in page
    assert "no problems found" in check_function(Cube, cube)._repr_html_()


def test_learner_html_is_escaped():
    sneaky = function(
        "Sneaky", save_and(cube), lambda ctx, g: (_ for _ in ()).throw(ValueError("<script>"))
    )
    page = check_function(sneaky, cube)._repr_html_()
    assert "<script>" not in page and "&lt;script&gt;" in page


def test_the_checked_text_says_where_the_doctor_looked():
    text = str(check_function(Cube, cube))
    where = "at 12 points of the sample, 32 random points in [-10, 10] and 32 points in the tails"
    assert where in text
    assert "double backward gives the reference's second derivatives" in text
    assert "the gradient scales with grad_out" in text
    assert "a non-contiguous grad_out gives the same gradient" in text
