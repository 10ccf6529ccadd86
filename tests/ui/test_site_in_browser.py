"""The course's website in a real browser, served on 127.0.0.1 as any static host serves it.

`make site`'s build (with a repository, so the pages carry their launch buttons) is served
by Python's http.server, and every page is opened at a projector's 1280x720, then narrowed
to a phone's 390 px width. Every request is recorded, and all must stay on the machine; any
other is refused, so the test itself never reaches the network. No page may throw, every
link to the site must lead to a page, file or anchor that is there, every picture must have
alt text, and the text must never scroll sideways (a wide code block or output may scroll
inside itself). Sphinx's own search must find the developer track offline. On a phone the
menu and contents buttons open their sidebars; on a projector the menu folds away.
"""

import functools
import os
import re
import subprocess
import sys
import threading
from dataclasses import dataclass, field
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

from tests.lab_server import ROOT
from tools.site import site_pages

REPOSITORY = "https://github.com/ada/backward-course"
SCREENS = {"projector": {"width": 1280, "height": 720}, "phone": {"width": 390, "height": 844}}
# blob: and data: are the page's own objects (MathJax's speech worker), not requests out.
ON_THIS_MACHINE = re.compile(r"^(blob:|data:|https?://127\.0\.0\.1[:/])")
HOME = "notebooks/00-start-here.html"
DEVELOPER_TRACK = "notebooks/01-custom-function/2-developer.html"

# What the test judges on a page, once MathJax (where a page has maths) has typeset it.
MEASURE = """async () => {
  if (window.MathJax?.startup?.promise) await window.MathJax.startup.promise;
  // two frames: the page's own handlers of a resize have run
  await new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)));
  return {
    title: document.title,
    ids: [...document.querySelectorAll('[id]')].map((e) => e.id),
    links: [...document.querySelectorAll('a[href]')].map((a) => a.href)
      .filter((href) => href.startsWith(location.origin)),
    images: [...document.querySelectorAll('img')]
      .map((img) => [img.getAttribute('src'), img.getAttribute('alt')]),
    scrollWidth: document.documentElement.scrollWidth,
    innerWidth: window.innerWidth,
    maths: document.querySelectorAll('mjx-container').length,
  };
}"""


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    """The site as `make site` builds it, with launch buttons for REPOSITORY."""
    # make site's own rule for MathJax (npm ci), then its build into a folder of this test.
    subprocess.run(
        ["make", "-s", "site/node_modules/.package-lock.json"], cwd=ROOT, check=True, timeout=600
    )
    out = tmp_path_factory.mktemp("site") / "site"
    done = subprocess.run(
        [sys.executable, "-m", "tools.site", "--out", str(out)],
        cwd=ROOT,
        env=os.environ | {"SITE_REPOSITORY": REPOSITORY},
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    return out


@pytest.fixture(scope="module")
def served(site):
    """http://127.0.0.1:PORT/ serving the site, and every (path, status) it answered."""
    answered: list[tuple[str, int]] = []

    class Handler(SimpleHTTPRequestHandler):
        def log_request(self, code="-", size="-"):
            answered.append((unquote(urlsplit(self.path).path), int(code)))

    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Handler, directory=site))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}/", answered
    server.shutdown()
    server.server_close()


@dataclass
class Walk:
    """Every page of the site as the browser showed it on one screen."""

    base: str
    pages: dict[str, dict] = field(default_factory=dict)  # path -> MEASURE's findings
    requested: list[str] = field(default_factory=list)


@pytest.fixture(scope="module")
def walks(browser, site, served) -> dict[str, Walk]:
    """Every page loaded once at the projector's size and measured, then narrowed to the
    phone's and measured again: the layout follows the width (CSS media queries), and
    one load instead of two halves the time MathJax spends typesetting."""
    base, _ = served
    first = next(iter(SCREENS))
    page = browser.new_page(viewport=SCREENS[first])
    found = {screen: Walk(base) for screen in SCREENS}
    requested: list[str] = []
    page.on("request", lambda r: requested.append(r.url))
    page.route(lambda url: not ON_THIS_MACHINE.match(url), lambda route: route.abort())
    for path in site_pages(site):
        relative = path.relative_to(site).as_posix()
        if relative == "index.html":
            continue  # it leads on to the course map: test_the_home_page_is_the_course_map
        response = page.goto(base + relative)
        assert response.status == 200, relative
        for screen in SCREENS:
            if screen != first:
                page.set_viewport_size(SCREENS[screen])
            found[screen].pages[relative] = page.evaluate(MEASURE)
        page.set_viewport_size(SCREENS[first])
    page.close()
    for walk in found.values():
        walk.requested = requested
    return found


@pytest.fixture(params=list(SCREENS), ids=list(SCREENS))
def walk(request, walks) -> Walk:
    """The pages as one screen showed them."""
    return walks[request.param]


def test_the_home_page_is_the_course_map(browser, served):
    base, _ = served
    page = browser.new_page()
    page.goto(base)
    page.wait_for_url(base + HOME)
    assert page.locator("h1").first.inner_text().startswith("Write your own backward pass")
    page.close()


def test_every_page_opens_with_a_title(walk, site):
    expected = {p.relative_to(site).as_posix() for p in site_pages(site)} - {"index.html"}
    assert set(walk.pages) == expected
    assert all(found["title"].strip() for found in walk.pages.values())


def test_no_request_leaves_the_machine(walk, served):
    _, answered = served
    away = sorted({url for url in walk.requested if not ON_THIS_MACHINE.match(url)})
    assert away == []
    # Everything the pages asked the server for was there (a browser's own favicon aside).
    missing = sorted({path for path, status in answered if status >= 400} - {"/favicon.ico"})
    assert missing == []


def test_every_link_to_the_site_leads_somewhere(walk, browser):
    checker = browser.new_page()
    broken = []
    for path, found in walk.pages.items():
        for link in found["links"]:
            target, _, anchor = link.removeprefix(walk.base).partition("#")
            target = unquote(target) or path
            if target in walk.pages:
                if anchor and unquote(anchor) not in walk.pages[target]["ids"]:
                    broken.append(f"{path}: {link} (no such anchor)")
            elif checker.request.get(walk.base + target).status != 200:
                broken.append(f"{path}: {link} (no such file)")
    checker.close()
    assert broken == []


def test_every_picture_has_alt_text(walk):
    missing = [
        f"{path}: {src}"
        for path, found in walk.pages.items()
        for src, alt in found["images"]
        if not (alt or "").strip()
    ]
    assert missing == []
    explorer = walk.pages["notebooks/01-custom-function/1-beginner.html"]["images"]
    assert any(alt.startswith("Gradient explorer for RoundSTE") for _, alt in explorer)


def test_the_text_never_scrolls_sideways(walk):
    wide = {
        path: f"{found['scrollWidth']} px wide in {found['innerWidth']}"
        for path, found in walk.pages.items()
        if found["scrollWidth"] > found["innerWidth"]
    }
    assert wide == {}


def test_maths_is_typeset(walk):
    assert walk.pages["notebooks/02-checking-gradients/3-researcher.html"]["maths"] > 100


def test_search_finds_the_developer_track(browser, served):
    base, _ = served
    page = browser.new_page()
    requested = []
    page.on("request", lambda r: requested.append(r.url))
    page.route(lambda url: not ON_THIS_MACHINE.match(url), lambda route: route.abort())
    page.goto(base + "search.html?q=save_for_backward")
    hit = page.locator(f'#search-results a[href*="{DEVELOPER_TRACK}"]').first
    hit.wait_for(timeout=30_000)
    assert "developer track" in hit.inner_text()
    assert all(ON_THIS_MACHINE.match(url) for url in requested)
    page.close()


# pydata-sphinx-theme wires a hidden twin of each sidebar button, not the one a reader sees
# (its issue #2451); site/_static/sidebar_toggles.js passes the visible one's click on.
SHOWN = 5_000  # ms for a sidebar to open or close


def test_on_a_phone_the_menu_button_opens_the_course_navigation(browser, served):
    base, _ = served
    page = browser.new_page(viewport=SCREENS["phone"])
    page.goto(base + DEVELOPER_TRACK)
    navigation = page.locator("#pst-primary-sidebar-modal nav.bd-docs-nav")
    assert not navigation.is_visible(), "the menu starts closed"
    page.locator(".primary-toggle:visible").click()
    navigation.wait_for(state="visible", timeout=SHOWN)
    for name in ("Lesson 1: writing your own Function", "Lesson 2: checking your gradients"):
        assert navigation.get_by_text(name).is_visible(), name
    lesson_2 = navigation.get_by_role("link", name="Checking your gradients: the developer track")
    assert lesson_2.is_visible()
    page.keyboard.press("Escape")
    navigation.wait_for(state="hidden", timeout=SHOWN)

    page.locator(".secondary-toggle:visible").click()
    contents = page.locator("#pst-secondary-sidebar-modal")
    heading = contents.get_by_role("link", name="Mistake 3: a wrong derivative that runs fine")
    heading.wait_for(state="visible", timeout=SHOWN)
    page.close()


def test_on_a_projector_the_menu_button_folds_the_navigation_away(browser, served):
    base, _ = served
    page = browser.new_page(viewport=SCREENS["projector"])
    page.goto(base + DEVELOPER_TRACK)
    navigation = page.locator("#pst-primary-sidebar nav.bd-docs-nav")
    assert navigation.is_visible()
    page.locator(".primary-toggle:visible").click()
    navigation.wait_for(state="hidden", timeout=SHOWN)
    page.locator(".primary-toggle:visible").click()
    navigation.wait_for(state="visible", timeout=SHOWN)
    page.close()
