"""The wrong spikes of Part 2: each is wrong in the one way its name says, by torch's own
tools and the doctor, and the last is wrong only while hypothesis draws."""

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from lessons_lib import check_function
from lessons_lib.exercises.spike_answers import SpikeAnswer
from lessons_lib.exercises.surrogate_mistakes import MISTAKES, WrongWhileDrawing, declared_rule

X = torch.tensor([0.2, 0.9, 1.3, 2.0], dtype=torch.float64)
CODES = {
    "off-centre": "gradient",
    "float-output": "output-dtype",
    "clipped-grad-out": "chain-rule",
    "number-gradient": "non-tensor-grad",
}


def fires(x, threshold, width):
    return (x >= threshold).to(x.dtype)


def gradient(fn, x, grad_out):
    x = x.clone().requires_grad_()
    (grad,) = torch.autograd.grad(fn.apply(x, 1.0, 0.5), x, grad_out)
    return grad


@pytest.mark.parametrize("mistake", MISTAKES, ids=lambda m: m.key)
def test_the_doctor_names_each_mistake_by_its_own_code(mistake):
    report = check_function(mistake.fn, fires, grad_reference=declared_rule, inputs=(X, 1.0, 0.5))
    assert report.codes == [CODES[mistake.key]]


def test_the_right_spike_and_the_rule_agree():
    assert check_function(SpikeAnswer, fires, grad_reference=declared_rule, inputs=(X, 1.0, 0.5)).ok


def test_each_mistake_differs_from_the_right_spike_where_its_name_says():
    grad_out = torch.tensor([2.0, -3.0, 0.5, 4.0], dtype=torch.float64)
    right = gradient(SpikeAnswer, X, grad_out)
    by_key = {m.key: m.fn for m in MISTAKES}
    assert not torch.allclose(gradient(by_key["off-centre"], X, grad_out), right)
    assert by_key["float-output"].apply(X, 1.0, 0.5).dtype == torch.float32
    assert not torch.allclose(gradient(by_key["clipped-grad-out"], X, grad_out), right)
    assert torch.allclose(
        gradient(by_key["clipped-grad-out"], X, grad_out.clamp(-1, 1)),
        right * grad_out.clamp(-1, 1) / grad_out,
    )
    with pytest.raises(RuntimeError, match="not a Variable"):
        gradient(by_key["number-gradient"], X, grad_out)


def test_the_probe_is_right_outside_hypothesis_and_wrong_inside():
    grad_out = torch.tensor([2.0, -3.0, 0.5, 4.0], dtype=torch.float64)
    assert torch.equal(gradient(WrongWhileDrawing, X, grad_out), gradient(SpikeAnswer, X, grad_out))
    differs = []

    @settings(max_examples=1, database=None, derandomize=True)
    @given(st.just(0))
    def inside(_):
        differs.append(
            not torch.allclose(
                gradient(WrongWhileDrawing, X, grad_out), gradient(SpikeAnswer, X, grad_out)
            )
        )

    inside()
    assert differs == [True]
