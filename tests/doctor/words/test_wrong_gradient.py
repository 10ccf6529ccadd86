"""words.wrong_gradient: a wrong gradient, said by how grad_out is misused or the derivative is wrong."""

from lessons_lib.doctor.findings import LESSON_SECTIONS
from lessons_lib.doctor.words import wrong_gradient


def test_the_chain_rule_finding_says_how_backward_fails_to_scale():
    assert "ignores grad_out" in wrong_gradient.chain_rule("x", "ignores", ()).what
    assert "adds grad_out" in wrong_gradient.chain_rule("x", "adds", ()).what
    assert "does not scale" in wrong_gradient.chain_rule("x", "other", ()).what


def test_grad_out_misused_is_fixed_by_using_it_not_by_rederiving_the_derivative():
    """The derivative is right in both: the generic words would send the learner astray."""
    one = wrong_gradient.chain_rule("x", "one-number", (), "15.8, the sum of grad_out")
    assert "uses grad_out as one number" in one.what and "times 15.8, the sum of" in one.what
    assert "grad_out.sum()" in one.why and "element by element" in one.fix
    ignored = wrong_gradient.chain_rule("x", "ignores-output", (), "output 1 (g3 in backward)")
    assert "ignores the grad_out of output 1 (g3 in backward)" in ignored.what
    assert "one grad_out per output" in ignored.why and "summed" in ignored.fix
    for words in (one, ignored):
        assert (
            "Multiply by grad_out" not in words.fix
            and words.section == LESSON_SECTIONS["chain-rule"]
        )
