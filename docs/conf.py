"""Sphinx configuration of the opendp-graph documentation (Sphinx + pydata-sphinx-theme, as OpenDP
and NetworkX do).

Build it from the repository root, with warnings as errors (``pip install -e ".[docs]"`` first)::

    .venv/bin/sphinx-build -j auto -W --keep-going -b html docs docs/_build/html

* The API reference (``docs/api/*.rst``) lists every public name by hand, grouped by topic;
  ``autosummary`` writes one stub page per name into ``docs/api/generated/`` at build time (not
  committed: they are derived from the docstrings, so they never go stale).
  ``tests/package/test_docs.py`` checks that the lists cover every public name.
* The tutorials stay in ``tutorials/``: this file mirrors ``tutorials/*.ipynb`` into
  ``docs/tutorials/`` (git-ignored, rewritten only when a notebook changed) because Sphinx reads
  sources inside ``docs/`` only. myst-nb executes them at build time; nothing is written back to
  ``tutorials/``. The notebooks read the real data sets through ``opendp_graph.datasets``
  (``$OPENDP_GRAPH_DATA``, else ``../shared/data`` beside the checkout, else the per-user cache).
  Except ``spark.ipynb``: the ``docs`` extra does not install pyspark (nor Java), so the site shows
  the outputs stored in the notebook (``nb_execution_excludepatterns``); ``tests/package/test_tutorials.py``
  executes it for real where pyspark and Java are present.
* ``README.md`` and ``CHANGELOG.md`` are included (MyST ``{include}``), not copied.
* Docstrings are reST with ``:param:`` fields; the few NumPy sections ("Parameters" + dashes) go
  through napoleon's NumPy parser (``_numpy_sections`` below).
* No intersphinx: its inventories are fetched over the network at build time.
"""

from __future__ import annotations

from pathlib import Path

import opendp_graph

DOCS = Path(__file__).resolve().parent
REPO = DOCS.parent

# -- project ----------------------------------------------------------------------------------

project = "opendp-graph"
author = "The opendp-graph developers"
copyright = "The opendp-graph developers"
release = opendp_graph.__version__
version = release

# -- the tutorials: tutorials/*.ipynb mirrored into docs/tutorials/ ----------------------------


def _mirror_tutorials(source: Path = REPO / "tutorials", target: Path = DOCS / "tutorials") -> None:
    """Copy every ``source/*.ipynb`` to ``target/`` when its bytes differ (so unchanged notebooks
    keep their mtime and Sphinx does not re-read them) and drop copies whose notebook is gone."""
    target.mkdir(exist_ok=True)
    notebooks = {path.name: path for path in sorted(source.glob("*.ipynb"))}
    for stale in target.glob("*.ipynb"):
        if stale.name not in notebooks:
            stale.unlink()
    for name, path in notebooks.items():
        copy = target / name
        data = path.read_bytes()
        if not copy.exists() or copy.read_bytes() != data:
            copy.write_bytes(data)


_mirror_tutorials()

# -- general ------------------------------------------------------------------------------------

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.viewcode",
    "myst_nb",  # also registers myst_parser for the Markdown pages
]

root_doc = "index"
templates_path = ["_templates"]
exclude_patterns = ["_build", "**.ipynb_checkpoints", ".DS_Store", "Thumbs.db"]
default_role = "py:obj"  # `name` in a docstring is a cross-reference, as in numpy/networkx

# -- API reference --------------------------------------------------------------------------------

autosummary_generate = True  # stubs into docs/api/generated/ at every build (git-ignored)
autodoc_member_order = "bysource"
autodoc_typehints = "description"
autodoc_typehints_description_target = "documented_params"
autodoc_preserve_defaults = True  # show `num_nodes=None`, not an evaluated object repr
add_module_names = False

autosummary_context = {
    # constants whose value is too long to print (DATASETS: the whole registry)
    "no_value": ["opendp_graph.datasets.DATASETS"],
}

# -- notebooks (myst-nb) --------------------------------------------------------------------------

nb_execution_mode = "force"  # every notebook Sphinx reads is executed, with the package as it is now
# ... but the Spark one, whose stored outputs are rendered: the docs extra has no pyspark (see above)
nb_execution_excludepatterns = ["tutorials/spark.ipynb"]
nb_execution_timeout = 300  # seconds per cell, as tests/package/test_tutorials.py
# a failing cell is a warning (mystnb.exec) with its traceback in the log: with -W the build fails,
# and --keep-going still reports every other problem first
nb_execution_raise_on_error = False
nb_execution_show_tb = True
nb_merge_streams = True

# -- HTML -----------------------------------------------------------------------------------------

html_theme = "pydata_sphinx_theme"
html_title = f"opendp-graph {release}"
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "footer_start": ["copyright"],
    "footer_end": ["sphinx-version", "theme-version"],
}
html_show_sourcelink = False


# -- re-exported constants ------------------------------------------------------------------------


def _comment_of_lifted_data(app, what, name, obj, options, lines):
    """Give a constant lifted into a package namespace the ``#:`` comment of the module that
    defines it.

    autodoc looks for a constant's ``#:`` comment in the module it documents it from; for one
    re-exported by a package (``opendp_graph.datasets.DATASETS``, defined in
    ``datasets/_resolve.py``) it finds none and falls back to the docstring of the value's type
    (``dict``'s), which is wrong and not even valid reST.
    """
    import sys

    from sphinx.pycode import ModuleAnalyzer, PycodeError

    if what != "data" or "." not in name:
        return
    modname, attr = name.rsplit(".", 1)
    for candidate in [modname] + sorted(m for m in sys.modules if m.startswith("opendp_graph.")):
        module = sys.modules.get(candidate)
        if module is None or attr not in vars(module) or vars(module)[attr] is not obj:
            continue
        try:
            comment = ModuleAnalyzer.for_module(candidate).find_attr_docs().get(("", attr))
        except PycodeError:
            continue
        if comment:
            if candidate != modname:
                lines[:] = list(comment)
            return


# -- NumPy sections ------------------------------------------------------------------------------


def _numpy_sections(app, what, name, obj, options, lines):
    """napoleon's NumPy-section parser ("Parameters" + dashes) for modules, classes and functions.

    Not ``sphinx.ext.napoleon`` itself: it also rewrites every attribute, property and constant docstring
    whose first line reads ``X: Y`` into "``Y``, Type: ``X``" (its inline-attribute syntax), which
    turns this package's "The largest supported node count: the largest ``n`` ..." into a type.
    Google sections ("Args:") are not parsed: the docstrings have none.
    """
    from sphinx.ext.napoleon import Config
    from sphinx.ext.napoleon.docstring import NumpyDocstring

    if what in {"attribute", "data", "property"}:
        return
    config = Config(napoleon_use_rtype=False)
    lines[:] = NumpyDocstring(lines, config, app, what, name, obj, options).lines()


def setup(app):
    app.connect("autodoc-process-docstring", _comment_of_lifted_data)
    app.connect("autodoc-process-docstring", _numpy_sections)
