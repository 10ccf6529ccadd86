"""The cost framing's Functions and what torch.compile makes of them."""

import torch
from torch.autograd import gradcheck, gradgradcheck

from lessons_lib.measure import saved_for_backward
from lessons_lib.research import (
    Exp,
    Passthrough,
)
from tests.research.samples import sample

# --- cost framing ----------------------------------------------------------------------------------


def test_passthrough_is_an_identity_that_saves_nothing():
    x = sample(5)
    torch.testing.assert_close(Passthrough.apply(x), x)
    assert gradcheck(Passthrough.apply, (x,))
    assert saved_for_backward(lambda: Passthrough.apply(x)).tensors == 0


def test_exp_matches_torch_exp_and_passes_gradgradcheck():
    x = sample(5)
    torch.testing.assert_close(Exp.apply(x), torch.exp(x))
    assert gradcheck(Exp.apply, (x,))
    assert gradgradcheck(Exp.apply, (x,))
