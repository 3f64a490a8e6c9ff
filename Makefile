# The two commands a reader needs:  make lab  (set up and open the workbook)  and  make test  (run every test).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
WORKBOOK := $(VENV)/.installed-workbook
TESTING := $(VENV)/.installed-test
APP := $(VENV)/.installed-app
COURSE := $(VENV)/.installed-course
COURSE_DIR ?= build/course
COURSE_LANG ?= en
COURSE_FEEDBACK ?= none

.PHONY: lab test app app-zh html course notebooks bench clean

$(WORKBOOK): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[workbook]'
	touch $@

$(TESTING): $(WORKBOOK)
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $@

$(APP): $(WORKBOOK)
	$(BIN)/python -m pip install --quiet -e '.[app]'
	touch $@

$(COURSE): $(WORKBOOK)
	$(BIN)/python -m pip install --quiet -e '.[course]'
	touch $@

## Create .venv, install the workbook, and open it in JupyterLab at the index of both editions (English, 中文).
# Jupyter refuses to run as root (containers, CI machines) unless told to.
ROOT_FLAG := $(if $(filter 0,$(shell id -u)),--allow-root,)

# The address it prints opens the index too (default_url); JupyterLab's news and update prompts, which cover the
# page, are off in the workbook's own environment (overrides.json in .venv, not the reader's settings).
LAB_SETTINGS := $(VENV)/share/jupyter/lab/settings/overrides.json
QUIET_LAB := {"@jupyterlab/apputils-extension:notification": {"checkForUpdates": false, "fetchNews": "false"}}

$(LAB_SETTINGS): $(WORKBOOK)
	mkdir -p $(dir $@)
	printf '%s\n' '$(QUIET_LAB)' > $@

lab: $(WORKBOOK) $(LAB_SETTINGS)
	$(BIN)/jupyter trust notebooks/*.ipynb notebooks/zh/*.ipynb
	$(BIN)/jupyter lab $(ROOT_FLAG) --ServerApp.root_dir=notebooks --LabApp.default_url=/lab/tree/index.ipynb \
		notebooks/index.ipynb

## Run the whole test suite (library, notebooks with nbval, transformers cross-checks, the browser test).
# Two processes, each taking whole files: a file's tests share one server, browser or course folder, and a
# notebook's cells run in order in one kernel. TEST_PROCESSES=1 runs them in this process, in order.
TEST_PROCESSES ?= 2
test: $(TESTING)
	$(BIN)/python -m pytest $(if $(filter 1,$(TEST_PROCESSES)),,-n $(TEST_PROCESSES) --dist loadfile)

## Serve the calculators of chapters 1-4 as one page, without code (Voila).
# llmest/surfaces/app/voila.json caps the kernels at 40 (about 100 MB each; a visitor past the cap gets a busy page)
# and culls kernels idle for 10 minutes (2 when no page is connected); voila.py installs the busy page.
app: $(APP)
	$(BIN)/voila --Voila.config_file_paths=llmest/surfaces/app llmest/surfaces/app/llmest-calculators.ipynb

## The same page in Chinese (中文计算器).
app-zh: $(APP)
	$(BIN)/voila --Voila.config_file_paths=llmest/surfaces/app llmest/surfaces/app/llmest-calculators-zh.ipynb

## Write the solved workbook as static HTML pages to build/html/ (open build/html/index.html).
html: $(WORKBOOK)
	rm -rf build/html
	$(BIN)/python -m llmest.book.export --out build/html

## Write an nbgrader course (build/course: source/, nbgrader_config.py) and release chapters 1-6 with nbgrader.
## COURSE_LANG=zh: the Chinese edition's course (e.g. make course COURSE_LANG=zh COURSE_DIR=build/course-zh).
## COURSE_FEEDBACK=right-or-wrong: a check says right or wrong before grading (default none: how it was read).
course: $(COURSE)
	$(BIN)/python -m llmest.book.course --out $(COURSE_DIR) --lang $(COURSE_LANG) --feedback $(COURSE_FEEDBACK)
	cd $(COURSE_DIR) && PATH="$(CURDIR)/$(BIN):$$PATH" $(CURDIR)/$(BIN)/nbgrader generate_assignment --force \
		--CourseDirectory.assignment_id='*'

## Rebuild notebooks/ from solutions/, and the Chinese edition (solutions/zh/, notebooks/zh/) from them and the
## catalogs in locale/zh_CN/ (brought in step first: a changed English paragraph marks its translation fuzzy).
notebooks: $(TESTING)
	$(BIN)/python -m llmest.book.edition update
	$(BIN)/python -m llmest.book.authoring

## Print the performance figures (import time, counting speed, calculator update, chapter run times).
bench: $(TESTING)
	$(BIN)/python tests/benchmark.py

clean:
	rm -rf $(VENV) *.egg-info build
