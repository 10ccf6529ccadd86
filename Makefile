# Two commands for a fresh machine (Python 3.11+): `make lab` opens the course,
# `make test` runs every test. Both build .venv/ once and reuse it until
# requirements.txt or pyproject.toml change.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
READY := $(VENV)/.ready
LAB_ARGS ?=
COURSE_DIR ?= notebooks  # the browser tests serve a scratch copy instead
# Loopback only, token kept (JupyterLab's default), nothing fetched from the network;
# --allow-root only when actually running as root.
LAB_FLAGS := --ServerApp.ip=127.0.0.1 --ServerApp.root_dir=$(COURSE_DIR) \
	--LabApp.default_url=/lab/tree/00-start-here.ipynb --LabApp.news_url=None \
	--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate \
	--LabApp.extension_manager=readonly $(if $(filter 0,$(shell id -u)),--allow-root)

NEWS_PLUGIN := @jupyterlab/apputils-extension:announcements

.PHONY: lab test notebooks slides

lab: $(READY)
	$(BIN)/jupyter lab $(LAB_FLAGS) $(LAB_ARGS)

test: $(READY)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/pytest
	@# Stored outputs must hold on any learner's CPU: again without AVX kernels.
	ATEN_CPU_CAPABILITY=default $(BIN)/pytest notebooks

# Re-run every notebook in a fresh kernel and store it normalised (see tools/notebooks.py).
notebooks: $(READY)
	$(BIN)/python -m tools.notebooks

$(READY): requirements.txt pyproject.toml binder/ipython_kernel_config.py
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11) and "Python 3.11+ is needed: make PYTHON=python3.11 ...")'
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	@echo "Installing the pinned requirements into $(VENV)/ (first run only; a minute or two)"
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -r requirements.txt -e .
	@# Every kernel of this environment loads the plain-English hints (lessons_lib/friendly.py).
	@mkdir -p $(VENV)/etc/ipython
	@cp binder/ipython_kernel_config.py $(VENV)/etc/ipython/
	@# No "get Jupyter news?" prompt: the course fetches nothing from the network.
	@$(BIN)/jupyter labextension disable --level=sys_prefix $(NEWS_PLUGIN) >/dev/null 2>&1
	@touch $@

# One reveal.js deck per notebook in build/slides/, in the notebooks' own folders (two
# lessons share file names), headings start slides. The decks load reveal.js from a CDN
# when opened; offline, present from JupyterLab's Presentation Mode.
slides: $(READY)
	@for nb in $$(find notebooks -name '*.ipynb' -not -path '*/.ipynb_checkpoints/*'); do \
		dir=build/slides/$$(dirname $${nb#notebooks/}); \
		$(BIN)/jupyter nbconvert --log-level=WARN --to slides --output-dir $$dir $$nb || exit 1; \
	done
