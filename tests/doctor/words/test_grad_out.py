"""words.grad_out: an undefined grad_out, said as backward receives it."""

from lessons_lib.doctor.words import grad_out


def test_undefined_grad_out_says_what_backward_received_and_which_output():
    raised = grad_out.undefined_grad_out(
        "", "TypeError: unsupported operand type(s) for *: 'NoneType' and 'int'", []
    )
    assert raised.what == "backward raises when grad_out is None."
    assert raised.evidence[0].startswith("with grad_out None, backward raised TypeError")
    assert "training stops with this error" in raised.why
    assert "if grad_out is None: return None" in raised.fix
    one = grad_out.undefined_grad_out(
        "output 1 (g3 in backward)", "TypeError: ... 'NoneType'", [], True
    )
    assert one.what == "backward raises when the grad_out of output 1 (g3 in backward) is None."
    invented = grad_out.undefined_grad_out("", None, ["x"], True)
    assert invented.what.startswith(
        "backward returns a non-zero gradient for x when every grad_out"
    )
    assert "stops with this error" not in invented.why
