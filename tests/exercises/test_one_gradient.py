"""one_gradient: each way a backward's result can be wrong gets the exercise's own words."""

import torch

from lessons_lib.exercises.one_gradient import OneGradientWords, one_gradient_case
from lessons_lib.running import Failure, Run

WORDS = OneGradientWords(
    "one gradient",
    lambda run: f"error: {run.failure.message}",
    count="{count} things",
    none="none",
    kind="{kind}",
    size="{got} for {want}",
    placeholder="placeholder",
)
X = torch.ones(3)


def fix_for(**run: object) -> str | None:
    return one_gradient_case(Run(**run), X, WORDS).fix


def test_each_wrong_result_gets_its_words_and_a_right_one_passes():
    assert fix_for(failure=Failure("backward", "NameError", "no g")) == "error: no g"
    assert fix_for(grads=(X, X)) == "2 things"
    assert fix_for(grads=(...,)) == "placeholder"
    assert fix_for(grads=(None,)) == "none"
    assert fix_for(grads=(3,)) == "an int"
    assert fix_for(grads=(torch.ones(2),)) == "2 for 3"
    assert one_gradient_case(Run(grads=(torch.zeros(3),)), X, WORDS).passed


def test_without_a_placeholder_in_the_starter_an_ellipsis_is_just_a_wrong_kind():
    words = OneGradientWords("n", str, count="", none="", kind="{kind}", size="")
    assert one_gradient_case(Run(grads=(...,)), X, words).fix == "an ellipsis"


def test_extra_trailing_nones_are_forgiven_as_autograd_forgives_them():
    assert one_gradient_case(Run(grads=(torch.zeros(3), None)), X, WORDS).passed
    assert one_gradient_case(Run(grads=(torch.zeros(3), None, None)), X, WORDS).passed
    assert fix_for(grads=(None, torch.zeros(3))) == "2 things"  # a leading None is a mistake
    x = torch.tensor([2.0], requires_grad=True)
    two = type(
        "CubeAndNone",
        (torch.autograd.Function,),
        {
            "forward": staticmethod(lambda ctx, t: t**3),
            "backward": staticmethod(lambda ctx, g: (g * 12, None)),
        },
    )
    two.apply(x).backward()
    assert x.grad.item() == 12.0  # the claim: autograd accepts the extra None
