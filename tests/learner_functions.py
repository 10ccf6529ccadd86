"""Build small learner-style Functions for tests: two plain functions make one class."""

from torch.autograd import Function


def function(name, forward, backward, **extra):
    """A classic-form Function subclass built from two plain functions."""
    body = {"forward": staticmethod(forward), "backward": staticmethod(backward)}
    body.update({k: staticmethod(v) for k, v in extra.items()})
    return type(name, (Function,), body)


def saved(ctx):
    return ctx.saved_tensors[0]


def save_and(compute):
    """A forward that saves x and returns compute(x)."""

    def forward(ctx, x):
        ctx.save_for_backward(x)
        return compute(x)

    return forward


def cube(x):
    return x**3


def masked_clamp01(mask, scale=lambda grad_out: grad_out):
    """A Clamp01 as lesson 1's YourClamp01 is written: backward gives scale(grad_out) where
    mask(x) holds, else zero."""

    def forward(ctx, x):
        ctx.save_for_backward(mask(x))
        return x.clamp(0, 1)

    return function("YourClamp01", forward, lambda ctx, grad_out: scale(grad_out) * saved(ctx))
