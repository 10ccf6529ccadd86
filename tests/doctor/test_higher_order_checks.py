"""higher_order_checks: double backward and jvp against the reference, and when they are not checked."""

import torch
from torch.autograd import Function
from torch.autograd.function import once_differentiable

from lessons_lib.doctor.examination import check_function
from lessons_lib.doctor.findings import LESSON_SECTIONS
from tests.doctor_catalogue import WRONG
from tests.learner_functions import cube, function, save_and


def test_a_once_differentiable_backward_is_not_checked_twice_and_the_report_says_why():
    from lessons_lib.research import CubeOnceDifferentiable

    report = check_function(CubeOnceDifferentiable, cube)
    assert report.ok
    text = str(report)
    assert "Double backward was not checked: backward is marked @once_differentiable" in text
    assert "silently zero" in text  # and says when the refusal does not fire


@once_differentiable
def cube_backward_helper(ctx, g):
    return g * 3 * ctx.saved_tensors[0] ** 2


def test_a_once_differentiable_helper_inside_backward_is_a_refusal_not_a_wrong_answer():
    """torch.autograd.grad can route around the refusal node; the doctor looks for it."""
    wrapped = function("CubeHelper", save_and(cube), lambda ctx, g: cube_backward_helper(ctx, g))
    report = check_function(wrapped, cube)
    assert report.ok, str(report)
    assert "Double backward was not checked" in str(report)


class ReluWithJvp(Function):
    @staticmethod
    def forward(x):
        return x.clamp(min=0)

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(inputs[0])
        ctx.save_for_forward(inputs[0])

    @staticmethod
    def backward(ctx, g):
        return g * (ctx.saved_tensors[0] >= 0)  # 1 at the kink: a valid subgradient

    @staticmethod
    def jvp(ctx, t):
        return t * (ctx.saved_tensors[0] >= 0)


class ReluWildJvpAtZero(ReluWithJvp):
    @staticmethod
    def jvp(ctx, t):
        x = ctx.saved_tensors[0]
        return torch.where(x == 0, 7 * t, t * (x > 0))  # 7 is no slope of relu at 0


def test_at_a_kink_jvp_may_push_any_one_sided_slope_but_no_other_value():
    assert check_function(ReluWithJvp, torch.relu).ok
    report = check_function(ReluWildJvpAtZero, torch.relu)
    assert report.codes == ["jvp"]
    assert "tangent at output[1, 0] (x[1, 0] = 0, tangent" in str(report)


# --- double backward: the words match what happens ------------------------------------


def test_a_double_backward_that_raises_is_not_said_to_pass_with_no_error():
    raises = next(w[1] for w in WRONG if w[0] == "backward calls x.numpy() without detach")
    text = str(check_function(raises, cube))
    assert "Double backward raised RuntimeError: Can't call numpy() on Tensor" in text
    assert "with no error" not in text and "stops with this error" in text
    silent = next(w[1] for w in WRONG if w[0] == "backward detaches x")
    assert "with no error" in str(check_function(silent, cube))


def test_double_backward_and_jvp_send_a_developer_to_lesson_2_and_the_researcher_track_after():
    for name, code in (("backward detaches x", "double-backward"), ("jvp that raises", "jvp")):
        fn = next(w[1] for w in WRONG if w[0] == name)
        text = str(check_function(fn, cube))
        assert f"Read more: {LESSON_SECTIONS[code]}" in text
        assert "Read more: Lesson 2 developer track" in text
        assert "Further reading: Lesson 1 researcher track" in text
    page = check_function(fn, cube)._repr_html_()
    assert "<i>Further reading:</i> Lesson 1 researcher track" in page
