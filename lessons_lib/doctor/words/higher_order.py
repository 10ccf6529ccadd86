"""The words for derivatives beyond one backward: double backward and forward mode (jvp)."""

from lessons_lib.doctor.findings import Finding


def double_backward(
    what: str, evidence: tuple[str, ...] = (), raised: bool = False, intermediates: int = 0
) -> Finding:
    """intermediates: how many tensors forward saved that are neither its inputs nor outputs."""
    if raised:
        why = (
            "First derivatives work, so nothing shows in ordinary training; but anything that "
            "differentiates a gradient (torch.autograd.grad with create_graph=True, gradient "
            "penalties, torch.func.hessian) stops with this error."
        )
        fix = (
            "Build backward from differentiable torch ops on the saved tensors and grad_out (no "
            "NumPy, .item() or torch.tensor(...)), so it can be differentiated. If it must leave "
            "torch, decorate it with @once_differentiable, an honest refusal. Do not silence the "
            "error with .detach(): the second derivative is then silently wrong."
        )
    else:
        why = (
            "Anything that differentiates a gradient (torch.autograd.grad with "
            "create_graph=True, gradient penalties, torch.func.hessian) gets these wrong "
            "numbers, with no error."
        )
        fix = (
            "Build backward from differentiable torch ops on the saved tensors and grad_out: no "
            ".detach(), .data, NumPy or in-place tricks. If it cannot be differentiable (foreign "
            "code), decorate it with @once_differentiable, so a second derivative through it "
            "raises (at least when grad_out itself carries a graph) instead of being wrong."
        )
    if intermediates and not raised:
        many = intermediates > 1
        it = "them" if many else "it"
        fix = (
            f"forward saved {intermediates} tensor{'s' if many else ''} that "
            f"{'are' if many else 'is'} neither an input nor an output of forward: a value it "
            "computed on the way (y, var), where autograd records no graph back to the "
            f"inputs, so double backward treats {it} as a constant. Recompute {it} in backward "
            "from the saved inputs, or save only inputs and outputs. " + fix
        )
    return Finding("double-backward", what, why, fix, evidence)


def jvp(what: str, evidence: tuple[str, ...] = ()) -> Finding:
    return Finding(
        "jvp",
        what,
        "Forward mode (torch.func.jvp, jacfwd, and hessian whenever the output feeds something "
        "nonlinear) uses jvp, not backward, so it gets these wrong numbers while backward and "
        "gradcheck's default, reverse-mode checks look right.",
        "jvp(ctx, *tangents) pushes each input's tangent forward: for y = f(x) it returns "
        "f'(x) * x_tangent. Save what it needs with ctx.save_for_forward in setup_context.",
        evidence,
    )
