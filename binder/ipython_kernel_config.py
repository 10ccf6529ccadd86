# Loaded by every kernel of the course's environment (copied to sys.prefix/etc/ipython by
# `make` and by binder/postBuild): a cell run out of order gets a plain-English hint.
c.InteractiveShellApp.extensions = ["lessons_lib.friendly"]  # noqa: F821 (c is IPython's config)
