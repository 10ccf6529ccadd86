"""words.state: what a Function changes in place or keeps on ctx, with the documented reasons."""

import torch

from lessons_lib.doctor.words import state
from lessons_lib.running import SavedChange


def test_the_ctx_tensor_finding_gives_the_documented_reasons_not_double_backward():
    why = state.ctx_tensor(["x"]).why
    assert "saved_tensors_hooks" in why and "version check" in why and "garbage collector" in why
    assert "double backward" not in why


def test_mutates_saved_says_where_the_change_lands_and_whether_a_second_backward_notices():
    before = torch.zeros(2)
    made_in_forward = SavedChange(1, None, before, before + 1, counted=True)
    words = state.mutates_saved(made_in_forward, ["x"], ())
    assert "argument 2 of save_for_backward" in words.what
    assert "Nothing else holds this tensor" in words.why and "second backward" in words.why
    output = state.mutates_saved(SavedChange(0, ("output", 0), before, before, False), ["x"], ())
    assert "the saved output in place" in output.what and "version counter" in output.why
