"""An IPython extension: a cell run before the cells it needs gets a plain-English hint.

`make lab`/`make test` (and Binder's postBuild) enable it for every kernel of the
course's environment by writing `ipython_kernel_config.py` into sys.prefix/etc/ipython,
so it works even before a notebook's first cell has imported anything.
"""

from types import TracebackType

from IPython.core.interactiveshell import InteractiveShell


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


def _handler(
    shell: InteractiveShell,
    etype: type,
    value: BaseException,
    tb: TracebackType | None,
    tb_offset: int | None = None,
) -> list[str]:
    lines = explain_name_error(value)
    # IPython's own display hook for tracebacks: in a notebook it becomes the cell's
    # error output (still an error, so Run All stops there), with our lines in its place.
    shell._showtraceback(etype, value, lines)
    return lines


def load_ipython_extension(shell: InteractiveShell) -> None:
    """Called by IPython when the extension loads."""
    shell.set_custom_exc((NameError,), _handler)
