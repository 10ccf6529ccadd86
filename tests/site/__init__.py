"""`make site`: the course as a static website, built from the stored outputs (tools/site.py,
site/'s Sphinx extensions).

The pages in a browser (nothing fetched from elsewhere, search, phone width) are in
tests/ui/test_site_in_browser.py; here, what the build writes and what stops it.
"""
