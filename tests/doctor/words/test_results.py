"""words.results: what a Function runs and returns, said so the fix fits the mistake."""

import torch

from lessons_lib.doctor.words import results


def test_grad_shape_advice_depends_on_which_way_the_shape_is_off():
    x = torch.zeros(4)
    too_big = results.grad_shape("x", torch.zeros(3, 5), x)
    too_small = results.grad_shape("x", torch.zeros(()), x)
    assert "sum_to_size" in too_big.fix and "broadcast" in too_big.fix
    assert "no reduction" in too_small.fix
    assert "do not sum" not in too_big.fix + too_small.fix
    assert "float, not a tensor" in results.grad_shape("x", 12.0, x).what
