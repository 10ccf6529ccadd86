"""Small words for messages about a learner's values."""

import torch

from lessons_lib.running import a_or_an, kind_and_size, numbers, plain, short


def test_short_describes_tensors_and_survives_a_broken_repr():
    assert short(torch.tensor([1.0, 2.0], dtype=torch.float64)) == (
        "tensor([1., 2.], dtype=torch.float64)"
    )

    class Broken:
        def __repr__(self):
            raise RuntimeError

    assert short(Broken()) == "a Broken" and len(short("x" * 200)) == 80


def test_plain_writes_a_short_tensor_as_numbers_and_anything_else_as_short():
    assert plain(torch.tensor([120.0, -0.75, 13.5])) == "[120, -0.75, 13.5]"
    assert plain(torch.tensor([1, 2])) == "[1, 2]"
    assert plain(torch.ones(9)) == short(torch.ones(9))  # too long to read as a list
    assert plain(torch.ones(2, 2)) == short(torch.ones(2, 2))
    assert plain(None) == "None"


def test_a_or_an_follows_the_first_letter():
    assert a_or_an("int") == "an int" and a_or_an("float") == "a float"
    assert a_or_an("Ellipsis") == "an Ellipsis"


def test_numbers_flattens_and_shows_at_most_eight():
    assert numbers(torch.tensor([[0.001, 20.0]])) == "[0.001, 20]"
    assert numbers(torch.arange(10.0)) == "[0, 1, 2, 3, 4, 5, 6, 7, ...]"
    assert numbers(None) == "nothing"


def test_kind_and_size_counts_what_a_value_holds():
    assert kind_and_size(torch.ones(3)) == "a tensor holding 3 numbers"
    assert kind_and_size((1.0,)) == "a tuple of 1 thing"
    assert kind_and_size([1.0, 2.0]) == "a list of 2 things"
    assert kind_and_size("x") == "a str"
