"""The inputs the Function tests draw and build, and the gradients they compare."""

import torch
from hypothesis import strategies as st

# Finite floats with the points where clamp and round change behaviour mixed in.
special = st.sampled_from([0.0, 1.0, -0.0, 0.5, 1.5, 2.5, -0.5, -2.5, -1.0, 2.0])
values = st.lists(
    st.one_of(special, st.floats(-1e3, 1e3, allow_nan=False)), min_size=1, max_size=20
)


def leaf(data, dtype=torch.float64):
    """A fresh float64 leaf tensor that requires grad."""
    return torch.tensor(data, dtype=dtype, requires_grad=True)


def grad_of(fn, data):
    """Gradient of fn(x).sum() at data, through autograd."""
    x = leaf(data)
    fn(x).sum().backward()
    return x.grad
