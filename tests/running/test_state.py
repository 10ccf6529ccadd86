"""state: torch's global state comes back whatever learner code did."""

import torch

from lessons_lib.running import preserved_global_state


def test_preserved_global_state_restores_even_after_an_exception():
    try:
        with preserved_global_state():
            torch.set_grad_enabled(False)
            raise RuntimeError
    except RuntimeError:
        pass
    assert torch.is_grad_enabled()
