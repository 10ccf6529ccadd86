"""A cell run before the cells it needs gets a plain-English hint, in every course kernel."""

import nbformat
from nbclient import NotebookClient
from nbformat.v4 import new_code_cell, new_notebook

from lessons_lib.friendly import explain_name_error
from tools.notebooks import course_kernel


def test_the_hint_names_the_missing_name_and_how_to_recover():
    try:
        undefined_in_this_test  # noqa: B018
    except NameError as error:
        lines = explain_name_error(error)
    assert lines[0] == "NameError: name 'undefined_in_this_test' is not defined"
    text = " ".join(lines)
    assert "`undefined_in_this_test` does not exist yet" in text
    assert "Run All Above Selected Cell" in text and "Restart Kernel and Run All" in text


def test_a_fresh_course_kernel_shows_the_hint_instead_of_a_traceback():
    """The kernel loads the extension itself: nothing in the notebook imports lessons_lib.
    Loading it leaves torch out (about 1.5 s of a kernel's start) until a cell needs it."""
    torch_loaded = "import sys\nprint('torch' in sys.modules)"
    nb = new_notebook(cells=[new_code_cell(c) for c in ("x = 1", "print(y)", torch_loaded)])
    client = NotebookClient(nb, km=course_kernel(), allow_errors=True, timeout=120)
    client.execute()
    (error,) = nb.cells[1].outputs
    assert error.output_type == "error" and error.ename == "NameError"
    assert error.traceback == explain_name_error(NameError("name 'y' is not defined", name="y"))
    assert not any("Traceback" in line or "File " in line for line in error.traceback)
    assert nb.cells[2].outputs[0].text == "False\n"
    nbformat.validate(nb)


def test_an_error_the_course_can_explain_shows_its_sentence_before_the_traceback():
    """A learner's own call PyTorch refuses: the sentence first, the traceback kept below; an
    error the course cannot explain keeps IPython's own traceback."""
    refused = "torch.tensor([1, 2], requires_grad=True)"
    nb = new_notebook(cells=[new_code_cell(f"import torch\n{refused}"), new_code_cell("1 / 0")])
    client = NotebookClient(nb, km=course_kernel(), allow_errors=True, timeout=120)
    client.execute()
    (explained,), (other,) = nb.cells[0].outputs, nb.cells[1].outputs
    assert explained.ename == "RuntimeError"
    assert explained.traceback[1].startswith("In plain English: PyTorch gives gradients only")
    assert any("Traceback" in line for line in explained.traceback[3:])
    assert other.ename == "ZeroDivisionError" and "In plain English" not in "".join(other.traceback)
