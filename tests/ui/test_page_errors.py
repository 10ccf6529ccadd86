"""The watch on uncaught page errors (page_errors.py) sees what a broken widget throws.

Each test throws in a blank page on purpose, then takes the record itself, so that
conftest.py does not fail it: what it checks is that the record was there to take.
"""

import pytest

from tests.ui.page_errors import PAGE_ERRORS, failure

THROWN = {
    # as the widget manager threw in a callback: "Cannot read properties of undefined"
    "thrown in a callback": "setTimeout(() => undefined.then, 0)",
    # as it throws inside a promise chain that nobody handles
    "a rejected promise": "Promise.resolve().then(() => { throw new TypeError('nobody caught me'); })",
}


@pytest.fixture
def blank(browser):
    page = browser.new_page()
    yield page
    page.close()


def recorded(page, script: str) -> list[str]:
    """Run `script`, which leaves an error uncaught, in the page; the uncaught errors
    recorded once Playwright has reported it (the record's listener hears it first)."""
    with page.expect_event("pageerror", timeout=10_000):
        page.evaluate(f"() => {{ {script}; }}")
    return PAGE_ERRORS.take()


@pytest.mark.parametrize("script", THROWN.values(), ids=THROWN.keys())
def test_an_uncaught_error_is_recorded_with_its_message(blank, script):
    found = recorded(blank, script)
    assert len(found) == 1, found
    assert "TypeError" in found[0]
    assert "nobody caught me" in found[0] or "reading 'then'" in found[0]


def test_an_error_the_page_catches_is_not_recorded(blank):
    caught = "try { undefined.then } catch (e) { console.log(e.message) }"
    # An error left uncaught after it: the caught one, were it recorded, would come first.
    after = "setTimeout(() => { throw new RangeError('thrown after'); }, 0)"
    found = recorded(blank, f"{caught}; {after}")
    assert len(found) == 1 and "RangeError: thrown after" in found[0], found


def test_a_page_opened_by_a_watched_page_is_watched_too(blank):
    with blank.context.expect_page() as opened:
        blank.evaluate("() => { window.open('about:blank'); }")
    popup = opened.value
    found = recorded(popup, "setTimeout(() => undefined.then, 0)")
    popup.close()
    assert len(found) == 1 and "reading 'then'" in found[0], found


def test_the_failure_names_each_error():
    message = failure(["http://x/lab\n  TypeError: boom"], "during this test")
    assert message.startswith("1 uncaught error(s) in the page during this test:")
    assert "TypeError: boom" in message
