"""show_source and show_section return exactly the library code a notebook should display."""

import inspect

import pytest

from lessons_lib import research
from lessons_lib.display import show_section, show_source
from lessons_lib.research import costs
from lessons_lib.running import LessonError


def test_show_source_is_the_class_source():
    assert show_source(research.Sort).data.startswith("class Sort(Function):")


def test_show_section_runs_from_its_comment_to_the_next_section():
    code = show_section(research, "reason 1, the recommended way").data
    assert code.startswith('@torch.library.custom_op("lessons::numpy_correlate"')
    assert "numpy_convolve.register_autograd(" in code
    assert "# ---" not in code and "class Heaviside" not in code


def test_show_section_of_the_last_section_runs_to_the_end_of_the_module():
    last_line = inspect.getsource(costs).rstrip().splitlines()[-1]  # costs.py's last section
    assert show_section(research, "torch.compile").data.rstrip().endswith(last_line)


def test_show_section_refuses_an_unknown_title_and_lists_the_titles():
    with pytest.raises(LessonError, match="has no section called 'no such section'; its sec") as no:
        show_section(research, "no such section")
    assert "'reason 2: surrogate gradients'" in str(no.value) and "---" not in str(no.value)
