"""An IPython extension: a cell run before the cells it needs gets a plain-English hint, and
an error the course can explain (a learner's own call, such as my_edge_test(Clamp01), that
PyTorch refused) shows its one-sentence explanation first, the full traceback below it.

`make lab`/`make test` (and Binder's postBuild) enable it for every kernel of the
course's environment by writing `ipython_kernel_config.py` into sys.prefix/etc/ipython,
so it works even before a notebook's first cell has imported anything.
"""

import os
import traceback
from pathlib import Path
from types import TracebackType

from IPython.core.interactiveshell import InteractiveShell

from lessons_lib import kernel_stopped


def explain_name_error(error: NameError) -> list[str]:
    """The hint a learner sees instead of a traceback when a name is not defined yet."""
    name = getattr(error, "name", None) or str(error)
    return [
        f"NameError: {error}",
        f"`{name}` does not exist yet in this session. Most often that means a cell above",
        "that creates it has not run (or the kernel restarted since). Run the cells above",
        "first: Run → Run All Above Selected Cell, or Kernel → Restart Kernel and Run All",
        "Cells. If you did run them, check the spelling.",
    ]


def explain_name_inside(error: NameError, function: str, line: str) -> list[str]:
    """The hint for a name missing inside a function the learner wrote (backward, say): a
    cell above cannot help there, so it names the function and the line."""
    name = getattr(error, "name", None) or str(error)
    return [
        f"NameError: {error}",
        f"`{name}` does not exist inside {function}, on the line: {line}",
        f"Check the spelling: inside {function}, only its own arguments and variables and the "
        "notebook's names exist.",
        "The full traceback follows, for reference:",
    ]


def _inside_a_function(tb: TracebackType | None) -> tuple[str, str] | None:
    """(function, line) when the error was raised inside a def rather than at a cell's top level."""
    frames = traceback.extract_tb(tb) if tb is not None else []
    if not frames or frames[-1].name == "<module>":
        return None
    return frames[-1].name, (frames[-1].line or "").strip()


def explain_error(error: BaseException, traceback_lines: list[str]) -> list[str]:
    """The plain-English sentence first, then the full traceback kept below it; [] when the
    course has no sentence for this error. An error the course's own code raised (such as
    cube_grad's refusal of a list) is its sentence already: its message comes first."""
    # Here, not at the top: they import torch, which a kernel then loads only when needed.
    from lessons_lib.running.errors import first_line
    from lessons_lib.running.explain import plain_english

    sentence = plain_english(error)
    said = [f"In plain English: {sentence}"] if sentence else []
    if not said and not _raised_by_the_course(error):
        return []
    return [
        f"{type(error).__name__}: {first_line(error)}",
        *said,
        "The full traceback follows, for reference:",
        *traceback_lines,
    ]


_COURSE = str(Path(__file__).resolve().parent) + os.sep


def _raised_by_the_course(error: BaseException) -> bool:
    """Whether the error was raised in lessons_lib's own code, whose messages are sentences."""
    frames = traceback.extract_tb(error.__traceback__)
    return bool(frames) and str(Path(frames[-1].filename).resolve()).startswith(_COURSE)


def _handler(
    shell: InteractiveShell,
    etype: type,
    value: BaseException,
    tb: TracebackType | None,
    tb_offset: int | None = None,
) -> list[str] | None:
    inside = _inside_a_function(tb)
    if isinstance(value, NameError) and inside is not None:  # a typo in a def, not a cell
        full = shell.InteractiveTB.structured_traceback(etype, value, tb, tb_offset=tb_offset)
        lines = explain_name_inside(value, *inside) + full
    elif isinstance(value, NameError):
        lines = explain_name_error(value)
    else:
        full = shell.InteractiveTB.structured_traceback(etype, value, tb, tb_offset=tb_offset)
        lines = [] if hasattr(value, "_render_traceback_") else explain_error(value, full)
    if not lines:  # IPython's own display: the course's one-line errors, or any other
        shell.showtraceback((etype, value, tb), tb_offset=tb_offset)
        return None
    # IPython's own display hook for tracebacks: in a notebook it becomes the cell's
    # error output (still an error, so Run All stops there), with our lines in its place.
    shell._showtraceback(etype, value, lines)
    return lines


def load_ipython_extension(shell: InteractiveShell) -> None:
    """Called by IPython when the extension loads."""
    shell.set_custom_exc((Exception,), _handler)
    kernel_stopped.arm(shell)  # on a class's hub: why the last kernel died, if the limit did
