"""words.higher_order: double backward's words depend on whether it raised."""

from lessons_lib.doctor.words import higher_order


def test_double_backward_words_depend_on_whether_it_raised():
    raised = higher_order.double_backward("Double backward raised RuntimeError: ...", raised=True)
    silent = higher_order.double_backward("Double backward is wrong ...")
    assert "with no error" not in raised.why and "stops with this error" in raised.why
    assert "Do not silence the error with .detach()" in raised.fix
    assert "with no error" in silent.why
