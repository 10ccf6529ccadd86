# Two commands for a fresh machine (Python 3.11+): `make lab` opens the course,
# `make test` runs every test (`make check`, the quick loop, leaves out the browser tests,
# Binder's build and the class on the hub). They build the one .venv/ and reuse it: `make lab` installs the
# learner's list (requirements.txt), `make test` and `make check` add the test tools
# (requirements-test.txt); each reinstalls only when the files it is keyed on change.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
READY := $(VENV)/.ready
TEST_READY := $(VENV)/.ready-test
LAB_ARGS ?=
COURSE_DIR ?= notebooks  # the browser tests serve a scratch copy instead
# Loopback only, token kept (JupyterLab's default), nothing fetched from the network;
# --allow-root only when actually running as root.
LAB_FLAGS := --ServerApp.ip=127.0.0.1 --ServerApp.root_dir=$(COURSE_DIR) \
	--LabApp.default_url=/lab/tree/00-start-here.ipynb --LabApp.news_url=None \
	--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate \
	--LabApp.extension_manager=readonly $(if $(filter 0,$(shell id -u)),--allow-root)

NEWS_PLUGIN := @jupyterlab/apputils-extension:announcements

# pip installs without byte-compiling (--no-compile): Python then writes the cache of only
# what it imports, once, on first use; so this must not be switched off for make's commands.
# A whole compile of .venv/ is half the set-up's time.
unexport PYTHONDONTWRITEBYTECODE
PIP_INSTALL := -m pip install --quiet --disable-pip-version-check --no-compile
# The pip venv bundles, not upgraded. Measured with Python 3.11's pip 23.2: pips from 24.1
# on pick the pinned packages in 13-20 s instead of 31 s, but right after their install
# `import torch` leaves 282 MiB resident, not 225 MiB (until the files leave the page
# cache), and on fresh clones the walk's memory then passed 1 GiB (1,025 and 1,030 MiB).

# Two pytest workers: each test file (each notebook) stays on one, the browser tests share
# one (tests/conftest.py). WORKERS=0 runs everything in one process. On two cores a third
# worker was quicker in a checkout already set up, and slower on a fresh clone (its extra
# CPU time outweighed the waits it filled).
WORKERS ?= 2
xdist = $(if $(filter 0,$(WORKERS)),,-n $(WORKERS) --dist $(1))
TIMES := build/test-times
# The quick loop leaves out the browser tests, Binder's build, the installed wheel's run,
# the class on the hub and nbgrader's grading (a minute or more each).
QUICK_SKIP := --ignore=tests/ui --ignore=tests/hub/test_class.py --ignore=tests/test_nbgrader.py -m "not binder and not installed"

.PHONY: lab test binder-ahead check notebooks slides links binder-link site help

lab: $(READY)  ## set up .venv/ and open the course in JupyterLab
	$(BIN)/jupyter lab $(LAB_FLAGS) $(LAB_ARGS)

# nbval runs every notebook once in `make test`: from a copy, in Binder's environment with
# the wheel installed, without AVX kernels (tests/test_installed_course.py), so stored outputs
# hold outside the repository and on any CPU. Only where that environment cannot be built
# (no python3.11) does it run them here, in .venv/, instead; `make check` always does.
NBVAL_ONCE = $(if $(shell $(BIN)/python -c 'from tools.binder_env import missing_runtime as m; print(m() or "")'),,--ignore-glob='$(CURDIR)/notebooks/*')

# Every test, then where their time went (tools/test_times.py), pass or fail. Binder's
# environment builds first, in the background: pip's set-up of .venv/ leaves a core idle.
test: binder-ahead $(TEST_READY)  ## set up and run every test, then where the time went
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	@rm -rf $(TIMES)
	$(BIN)/pytest $(call xdist,loadfile) $(NBVAL_ONCE) --junitxml=$(TIMES)/all.xml; \
	status=$$?; $(BIN)/python -m tools.test_times $(TIMES); exit $$status

binder-ahead:
	@mkdir -p build
	@$(PYTHON) -m tools.binder_env --ahead </dev/null >build/binder-env-ahead.log 2>&1 &

# The quick loop while changing lessons_lib or a notebook: lint, the tests and nbval once.
check: $(TEST_READY)  ## the quick loop: lint and every test but the browser's, the hub's and Binder's build
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/pytest $(call xdist,loadfile) $(QUICK_SKIP)

# Re-run every notebook in a fresh kernel and store it normalised (see tools/notebooks.py).
notebooks: $(TEST_READY)  ## re-run every notebook and store its outputs
	$(BIN)/python -m tools.notebooks

# What the learner's set-up is built from: a change to any of them sets .venv/ up again.
LEARNER_INPUTS := requirements.txt pyproject.toml binder/ipython_kernel_config.py binder/jupyter_server_config.py

# .venv/ set up with one pip run over a list of pins, $(1) (every list includes the
# learner's), then the course's kernel and server settings; the learner's set-up is done.
define set_up_venv
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11) and "Python 3.11+ is needed: make PYTHON=python3.11 ...")'
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	@echo "Installing $(2) into $(VENV)/ (when they change; the first run takes a minute or two)"
	@# Under the lock binder/postBuild's editable install takes (tools/binder_env.py).
	@mkdir -p build
	$(if $(shell command -v flock),flock build/editable-install.lock) $(BIN)/python $(PIP_INSTALL) -r $(1) -e .
	@# Every kernel of this environment loads the plain-English hints (lessons_lib/friendly.py).
	@mkdir -p $(VENV)/etc/ipython $(VENV)/etc/jupyter
	@cp binder/ipython_kernel_config.py $(VENV)/etc/ipython/
	@# Under a small JupyterHub memory limit (Binder's) the server runs at most two kernels.
	@cp binder/jupyter_server_config.py $(VENV)/etc/jupyter/
	@# No "get Jupyter news?" prompt: the course fetches nothing from the network.
	@$(BIN)/jupyter labextension disable --level=sys_prefix $(NEWS_PLUGIN) >/dev/null 2>&1
	@touch $(READY)
endef

$(READY): $(LEARNER_INPUTS)
	$(call set_up_venv,requirements.txt,the learner's pinned requirements)

# Not built on $(READY): on a fresh machine one pip run over the test tools' list (which
# includes the learner's) resolves and checks every pin once, not twice.
$(TEST_READY): $(LEARNER_INPUTS) requirements-test.txt requirements-site.txt
	$(call set_up_venv,requirements-test.txt,the pinned requirements and test tools)
	@touch $@

# The course as a searchable static website, from the stored outputs (tools/site.py): the
# students' edition in build/site/ (no teacher's guide, answers folded); EDITION=teacher
# builds the teacher's, with the guide and the answers open, in build/site-teacher/.
SITE_NPM := site/node_modules/.package-lock.json
EDITION ?= students
site: $(TEST_READY) $(SITE_NPM)  ## the course as a website in build/site/ (EDITION=teacher: the guide too)
	SITE_HUB='$(HUB)' $(BIN)/python -m tools.site --edition '$(EDITION)'

# MathJax for the site, pinned in site/package-lock.json; under a lock, and only if still
# stale once it is held, as the site's tests and its browser test may both ask at once.
$(SITE_NPM): site/package.json site/package-lock.json
	@command -v npm >/dev/null || { echo "The site's MathJax needs Node.js and npm: apt-get install nodejs npm"; exit 1; }
	cd site && $(if $(shell command -v flock),flock .npm.lock) sh -c '[ node_modules/$(@F) -nt package.json ] \
	  && [ node_modules/$(@F) -nt package-lock.json ] || npm ci --no-audit --no-fund --loglevel=error'

# The Binder and Colab links and README badges for this clone's GitHub origin, and with
# HUB=https://your-hub the class hub's nbgitpuller link (tools/links.py). binder-link: old name.
HUB ?=
links binder-link:  ## the Binder and Colab links for this clone (HUB=... adds the hub's)
	@$(PYTHON) -m tools.links $(if $(HUB),--hub '$(HUB)')

# The course's credit line, filled from LICENSE and origin (REPOSITORY=https://github.com/O/R
# names another), and what copied code keeps (tools/credit.py): the site and decks show it.
REPOSITORY ?=
.PHONY: credit
credit:  ## the course's credit line, and what copied code keeps
	@$(PYTHON) -m tools.credit $(if $(REPOSITORY),--repository '$(REPOSITORY)')

# One reveal.js deck per notebook in build/slides/, in the notebooks' own folders (two
# lessons share file names), headings start slides (tools/slides.py). A deck opens offline,
# from the file: what it loads is copied beside it, into build/slides/assets/. Its last
# slide credits the course (REPOSITORY=https://github.com/O/R names another than origin).
SLIDES_NPM := slides/node_modules/.package-lock.json
slides: $(READY) $(SLIDES_NPM)  ## one offline slide deck per notebook in build/slides/
	$(BIN)/python -m tools.slides $(if $(REPOSITORY),--repository '$(REPOSITORY)')

# reveal.js and MathJax for the decks, pinned in slides/package-lock.json. Under a lock, and
# only if still stale once it is held: two test workers may build the decks at once.
$(SLIDES_NPM): slides/package.json slides/package-lock.json
	@command -v npm >/dev/null || { echo "The slide decks need Node.js and npm: apt-get install nodejs npm"; exit 1; }
	cd slides && $(if $(shell command -v flock),flock .npm.lock) sh -c '[ node_modules/$(@F) -nt package.json ] \
	  && [ node_modules/$(@F) -nt package-lock.json ] || npm ci --no-audit --no-fund --loglevel=error'

# Each exercise as an nbgrader assignment in build/nbgrader/ (tools/nbgrader_export.py):
# the source versions with the course's answers, the students' versions without them, the
# course's self-checks as the autograder tests. nbgrader (requirements-nbgrader.txt) is
# installed into its own environment over .venv/, build/nbgrader-env/, so `make lab`'s
# JupyterLab stays the learner's. The teacher's guide says how to grade with it.
.PHONY: nbgrader
nbgrader: $(READY)  ## each exercise as an nbgrader assignment in build/nbgrader/
	$(BIN)/python -m tools.nbgrader_export

# A class on JupyterHub on this machine, as root (hub/, tools/class_hub.py): each learner
# signs in and gets their own JupyterLab, as their own Unix user, at the course. Prints the
# teacher's and the learners' links. `make class PORT=8010`, `make class DEMO=1` without
# root (every learner runs as you: a demo, never a class), CLASS_ARGS for the rest
# (`python -m tools.class_hub --help`).
PORT ?= 8000
CLASS_ARGS ?=
CHP := hub/node_modules/.package-lock.json

.PHONY: class
class: $(CHP)  ## a class on JupyterHub on this machine, as root (PORT=, DEMO=1)
	$(PYTHON) -m tools.class_hub --port $(PORT) $(if $(DEMO),--demo) $(CLASS_ARGS)

# Each learner's latest verdict on each of the course's self-checks (tools/class_progress.py),
# as root like `make class`: the same table as the teacher's page on the hub,
# /services/progress/. CLASS_PREFIX=... for another class's folder.
.PHONY: class-progress
class-progress:  ## each learner's latest verdict on each self-check
	$(PYTHON) -m tools.class_progress $(if $(DEMO),--demo) $(if $(CLASS_PREFIX),--prefix $(CLASS_PREFIX))

# After the class: remove the Unix accounts and homes its hub created, once it has named
# them and you typed yes (tools/class_accounts.py); CLASS_PREFIX=... for another class.
.PHONY: class-remove
class-remove:  ## after the class: remove its accounts and homes, once you confirm
	$(PYTHON) -m tools.class_accounts $(if $(CLASS_PREFIX),--prefix $(CLASS_PREFIX))

# configurable-http-proxy, JupyterHub's proxy, pinned in hub/package-lock.json.
$(CHP): hub/package.json hub/package-lock.json
	@command -v npm >/dev/null || { echo "configurable-http-proxy needs Node.js and npm: apt-get install nodejs npm"; exit 1; }
	cd hub && npm ci --no-audit --no-fund --loglevel=error

# What each command does, from the `##` note on its rule.
help:  ## this list
	@awk -F ':.*## ' '/^[a-z][a-z -]*:.*## / {split($$1, names, " "); printf "  make %-15s %s\n", names[1], $$2}' $(MAKEFILE_LIST)
