"""A developer's main route runs on its own: every optional block can be skipped.

An optional block starts at a markdown cell holding "> **Optional on a first pass:**"
(a whole section also ends its heading with "(optional on a first pass)") and runs up to
the heading its "continue at “X”" names. A reader who skips it, as told, must never meet
a name that only the skipped cells defined.

Each track runs once, whole, in one kernel, with the kernel's names put back after each
optional block: the main route's cells then meet only the names they would meet with every
block skipped, and each block's cells only the main route's names before it (a reader who
comes back for one block has read the main route up to it, and no other block). Names are
what a skipped block can leave missing; one run, not a second of the main route alone, took
this module from 36 s to 24 s.
"""

import functools
import re
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

from tools.notebooks import NOTEBOOKS, course_kernel

DEVELOPER_TRACKS = [
    NOTEBOOKS / "01-custom-function" / "2-developer.ipynb",
    NOTEBOOKS / "02-checking-gradients" / "2-developer.ipynb",
]
MARKER = "> **Optional on a first pass:**"
SUFFIX = "(optional on a first pass)"
CONTINUE_AT = re.compile(r"On a first pass, continue at “([^”]+)”\.")


def headings(cell: nbformat.NotebookNode) -> list[str]:
    """The text of every markdown heading in a cell, without its #s."""
    if cell.cell_type != "markdown":
        return []
    return [line.lstrip("#").strip() for line in cell.source.splitlines() if line.startswith("#")]


def is_optional_start(cell: nbformat.NotebookNode) -> bool:
    """Whether a cell opens an optional block or section."""
    return cell.cell_type == "markdown" and (
        MARKER in cell.source or any(h.lower().endswith(SUFFIX) for h in headings(cell))
    )


def optional_blocks(nb: nbformat.NotebookNode) -> list[range]:
    """Each optional block's cells: from its marker to the heading it says to continue at.

    A block that holds another marker (an optional section inside an optional block's
    skip) ends where the inner one starts, so each block can also be read on its own.
    """
    starts = [i for i, cell in enumerate(nb.cells) if is_optional_start(cell)]
    blocks = []
    for n, i in enumerate(starts):
        source = nb.cells[i].source
        found = CONTINUE_AT.search(source)
        assert found, f"an optional block names no place to continue: {source[:80]!r}"
        target = found.group(1)
        after = [j for j in range(i + 1, len(nb.cells)) if target in headings(nb.cells[j])]
        assert after, f"“{target}”, where an optional block says to continue, is no later heading"
        blocks.append(range(i, min([after[0], *starts[n + 1 : n + 2]])))
    return blocks


# Run before and after each optional block: the kernel's names as they were before it.
SAVE_NAMES = "__names_before_the_block = dict(get_ipython().user_ns)"
RESTORE_NAMES = (
    "def __put_back(names, before):\n"
    "    names.clear()\n"
    "    names.update(before)\n\n\n"
    "__put_back(get_ipython().user_ns, __names_before_the_block)"
)


MAIN_ROUTE = "the main route"
NOT_RUN = "not run: a cell of the main route before it raised (the main route's test shows it)"


@functools.cache
def one_run(path: Path) -> dict[range | str, str | None]:
    """The whole track in one kernel, names put back after each block: the first error of
    each block's cells, and of the main route's cells (MAIN_ROUTE); None where none raised.
    After a block's error only its names are put back; a main route's error ends the run."""
    nb = nbformat.read(path, as_version=4)
    blocks = optional_blocks(nb)
    cells: list[tuple[nbformat.NotebookNode, range | None]] = []  # with the block it is in
    for index, cell in enumerate(nb.cells):
        block = next((b for b in blocks if index in b), None)
        if block is not None and index == block.start:
            cells.append((nbformat.v4.new_code_cell(SAVE_NAMES), block))
        cells.append((cell, block))
        if block is not None and index == block.stop - 1:
            cells.append((nbformat.v4.new_code_cell(RESTORE_NAMES), block))
    whole = nbformat.v4.new_notebook(metadata=nb.metadata)
    whole.cells = [cell for cell, _ in cells]
    client = NotebookClient(
        whole, km=course_kernel(), timeout=600, resources={"metadata": {"path": path.parent}}
    )
    errors: dict[range | str, str | None] = dict.fromkeys([*blocks, MAIN_ROUTE])
    with client.setup_kernel():
        for index, (cell, block) in enumerate(cells):
            if cell.cell_type != "code":
                continue
            if block is not None and errors[block] and cell.source != RESTORE_NAMES:
                continue
            try:
                client.execute_cell(cell, index)
            except CellExecutionError as error:
                owner = MAIN_ROUTE if block is None else block
                errors[owner] = errors[owner] or f"a cell raised:\n{error}"
                if block is None:
                    later = {b for _, b in cells[index:] if b is not None}
                    errors.update(dict.fromkeys(later, NOT_RUN))
                    break
    return errors


def blocks_or_none(path: Path) -> list[range]:
    """The blocks of a track, or none if its markers are broken (a test below says how)."""
    try:
        return optional_blocks(nbformat.read(path, as_version=4))
    except AssertionError:
        return []


# Each track's blocks, found at collection so that each gets a test of its own.
ONE_BLOCK = [
    pytest.param(path, block, id=f"{path.parent.name}-cells-{block.start}-{block.stop - 1}")
    for path in DEVELOPER_TRACKS
    for block in blocks_or_none(path)
]


@pytest.mark.parametrize("path", DEVELOPER_TRACKS, ids=lambda p: p.parent.name)
def test_every_optional_block_names_a_later_heading_to_continue_at(path):
    blocks = optional_blocks(nbformat.read(path, as_version=4))
    assert blocks, "the developer track marks its optional parts"


@pytest.mark.parametrize("path", DEVELOPER_TRACKS, ids=lambda p: p.parent.name)
def test_optional_markers_follow_one_style(path):
    """A section: heading ends with the suffix, blockquote right under it. A block: the blockquote."""
    for cell in nbformat.read(path, as_version=4).cells:
        if not is_optional_start(cell):
            continue
        lines = [line for line in cell.source.splitlines() if line.strip()]
        quote = 1 if lines[0].startswith("#") else 0
        if quote:
            assert lines[0].endswith(SUFFIX), lines[0]
        assert lines[quote].startswith(MARKER), cell.source[:120]
        assert CONTINUE_AT.search(lines[quote]), lines[quote]
        sections = [h for h in headings(cell) if h.lower().endswith(SUFFIX)]
        assert len(sections) == quote, "a heading in an optional cell must carry the suffix"


@pytest.mark.parametrize("path", DEVELOPER_TRACKS, ids=lambda p: p.parent.name)
def test_the_main_route_runs_with_every_optional_block_skipped(path):
    """Each main route's cell runs with only the names the main route gave (one_run)."""
    error = one_run(path)[MAIN_ROUTE]
    assert error is None, error


@pytest.mark.parametrize(("path", "block"), ONE_BLOCK)
def test_each_optional_block_runs_after_the_main_route_alone(path, block):
    """A reader who comes back for one optional part needs no other optional part first."""
    error = one_run(path)[block]
    assert error is None, error


def test_the_main_route_leaves_out_exactly_the_optional_cells():
    """Skipping removes every marked cell, a nested section's too, and keeps the heading after."""
    md, code = nbformat.v4.new_markdown_cell, nbformat.v4.new_code_cell
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        md("## A"),
        code("a = 1"),
        md(f"{MARKER} extra. On a first pass, continue at “B”."),
        code("b = 2"),
        md(f"## Extra {SUFFIX}\n\n{MARKER} more. On a first pass, continue at “B”."),
        code("c = 3"),
        md("## B"),
        code("print(a)"),
    ]
    skipped = {i for block in optional_blocks(nb) for i in block}
    kept = [cell.source for i, cell in enumerate(nb.cells) if i not in skipped]
    assert kept == ["## A", "a = 1", "## B", "print(a)"]
    assert optional_blocks(nb) == [range(2, 4), range(4, 6)]  # the outer ends at the inner


def small_track(
    tmp_path: Path, in_b: str, in_second_block: str, in_c: list[str]
) -> tuple[dict, range, range]:
    """A track of sections A, B and C, an optional block after each of the first two (the
    first defines b): one_run's errors, and the two blocks."""
    md, code = nbformat.v4.new_markdown_cell, nbformat.v4.new_code_cell
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        md("## A"),
        code("a = 1"),
        md(f"{MARKER} one. On a first pass, continue at “B”."),
        code("b = 2"),
        md("## B"),
        code(in_b),
        md(f"{MARKER} two. On a first pass, continue at “C”."),
        code(in_second_block),
        md("## C"),
        *map(code, in_c),
    ]
    path = tmp_path / "track.ipynb"
    nbformat.write(nb, path)
    first, second = optional_blocks(nb)
    return one_run(path), first, second


def test_a_block_that_needs_another_blocks_name_fails_and_names_are_put_back(tmp_path):
    # only the first block defined b
    errors, first, second = small_track(tmp_path, "a = a + 1", "print(b)", ["assert a == 2"])
    assert errors[first] is None and errors[MAIN_ROUTE] is None
    assert "NameError" in errors[second] and "'b' is not defined" in errors[second]


def test_a_main_route_cell_that_needs_a_blocks_name_fails_and_ends_the_run(tmp_path):
    errors, first, second = small_track(tmp_path, "print(a + b)", "c = 3", [])
    assert errors[first] is None
    assert "NameError" in errors[MAIN_ROUTE] and "'b' is not defined" in errors[MAIN_ROUTE]
    assert errors[second] == NOT_RUN
