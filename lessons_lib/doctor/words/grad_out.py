"""The words for a grad_out a simple test never sends: non-contiguous, or undefined (None)."""

from lessons_lib.doctor.findings import Finding


def non_contiguous_grad_out(
    layout: str, failure: str | None, names: list[str], evidence: tuple[str, ...] = ()
) -> Finding:
    """`failure`: what backward raised; otherwise `names` got another gradient, per `evidence`."""
    sent = f"with the same grad_out values {layout}"
    if failure is not None:
        what = "backward raises when grad_out is not contiguous."
        evidence = (f"{sent}, backward raised {failure}",)
    else:
        what = f"backward gives another gradient for {', '.join(names)} when grad_out is not contiguous."
        evidence = (f"{sent}:", *evidence)
    return Finding(
        "non-contiguous-grad-out",
        what,
        "In training, grad_out arrives in whatever memory layout the later steps produced, and "
        "that is often not contiguous: after y.sum(0) it is expanded, after y.t() * w "
        "transposed. grad_out.view(...) raises on such a layout, and code that reads the memory "
        "as if contiguous reads the wrong numbers; a contiguous grad_out, like the doctor's "
        "first one, hides both.",
        "Write grad_out.reshape(...) where you wrote grad_out.view(...) (reshape copies only "
        "when the layout needs it), or start backward with grad_out = grad_out.contiguous() "
        "when later code needs contiguous memory.",
        evidence,
    )


def undefined_grad_out(
    which: str, failure: str | None, names: list[str], several: bool = False
) -> Finding:
    """backward mishandles an undefined grad_out: `failure` is what it raised, else `names`
    got a non-zero gradient. `which`: the output whose grad_out was undefined, "" for all
    of them; `several`: the Function has several outputs."""
    sent = f"the grad_out of {which}" if which else "every grad_out" if several else "grad_out"
    if failure is not None:
        got = "None" if "None" in failure else "undefined"  # None when not materialized
        what = f"backward raises when {sent} is {got}."
        evidence = (f"with {sent} {got}, backward raised {failure}",)
        harm = (
            "backward then receives None, and training stops with this error. gradcheck's "
            "check_undefined_grad (on by default) sends the same undefined grad_out."
        )
    else:
        what = (
            f"backward returns a non-zero gradient for {', '.join(names)} when {sent} is undefined."
        )
        evidence = ()
        harm = (
            "backward then receives None. Either way, with no gradient coming back, the "
            "gradient for every input is zero: a backward that returns anything else moves "
            "weights the loss does not depend on. gradcheck's check_undefined_grad (on by "
            "default) expects None or zeros back."
        )
    return Finding(
        "undefined-grad-out",
        what,
        "An output's gradient is undefined when nothing after it sends one back: the step "
        "that used it returned None for it, or (with several outputs) the loss does not use "
        "that output. Autograd then hands backward zeros in its place, unless forward called "
        f"ctx.set_materialize_grads(False): {harm}",
        "Handle None before using grad_out: start backward with `if grad_out is None: return "
        "None` (one None per input), or, with several outputs, skip the share of each output "
        "whose grad_out is None. Or leave materialization on (drop "
        "ctx.set_materialize_grads(False)) if backward gains nothing from skipping the zeros.",
        evidence,
    )
