"""Every notebook in tutorials/ runs top to bottom (executed with nbclient, cwd = tutorials/):
the quickstart in the thorough tier (``-m thorough``, ``THOROUGH``), the others under ``-m slow``
(CI runs both tiers, and its documentation build executes them all but the Spark one); by default
``test_every_tutorial_compiles`` checks every one.

A notebook reads a real data set through ``dpg.datasets.data_path("<name>")``; it is skipped,
with the resolver's reason, when one of the data sets it names cannot be resolved (the tests do
not download unless ``OPENDP_GRAPH_DOWNLOAD=1``; see ``conftest.py``), and it carries the
``needs_data`` marker.

A notebook that uses Spark (its code names ``dpg.spark`` or imports ``pyspark``) is skipped, with
the reason, when pyspark or pyarrow cannot be imported (``pip install -e ".[test,spark]"``) or
Java is missing (no ``java`` on ``PATH`` and no ``JAVA_HOME``), as the Spark tests are; it
carries the ``spark`` marker, and its cells get ``SPARK_CELL_TIMEOUT_S`` (a local Spark session
takes seconds to start and a Spark job that runs out of heap can hang instead of failing).
"""

import importlib
import json
import os
import re
import shutil
from pathlib import Path

import pytest

from tests.conftest import skip_without_data
from opendp_graph.datasets import DATASETS

TUTORIALS = sorted((Path(__file__).resolve().parents[2] / "tutorials").glob("*.ipynb"))
DATA_CALL = re.compile(r"""data_path\(\s*["']([^"']+)["']""")
SPARK_USE = re.compile(r"\bdpg\.spark\b|\bopendp_graph\.spark\b|^\s*(?:from|import)\s+pyspark\b", re.M)
CELL_TIMEOUT_S = 300  # seconds per cell, as docs/conf.py
SPARK_CELL_TIMEOUT_S = 600
# the first notebook a user opens runs in the thorough tier (48 s of a default run's work; CI runs
# the tier, pytest -m thorough, as a step of its own). The others (6–20 s each, 65 s of a default
# run's work) run under -m slow, and CI executes every one of them (but the Spark one) in the
# documentation build of .ci/run (myst-nb, nb_execution_mode = "force", a failing cell fails the
# build); test_every_tutorial_compiles checks them all by default.
THOROUGH = {"quickstart"}


def _code(path: Path) -> str:
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    return "\n".join("".join(cell["source"]) for cell in cells if cell["cell_type"] == "code")


def datasets_read_by(path: Path) -> list[str]:
    """The data sets a notebook names in ``data_path("...")`` calls of its code cells."""
    return sorted(set(DATA_CALL.findall(_code(path))))


def uses_spark(path: Path) -> bool:
    """Whether a notebook's code uses the Spark path (``dpg.spark``, ``opendp_graph.spark``, ``pyspark``)."""
    return SPARK_USE.search(_code(path)) is not None


def spark_unavailable() -> str | None:
    """Why a notebook that uses Spark cannot run here, or ``None``."""
    for module in ("pyspark", "pyarrow"):
        try:
            importlib.import_module(module)
        except ImportError as error:
            return f'{module} cannot be imported ({error}); pip install -e ".[test,spark]"'
    if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
        return "Spark needs Java 17: no java on PATH and no JAVA_HOME"
    return None


def _param(path: Path):
    marks = [pytest.mark.needs_data] if datasets_read_by(path) else []
    if uses_spark(path):
        # about two minutes of Spark jobs on two cores: run with -m slow. By default its code is
        # compiled (test_every_tutorial_compiles), and tests/spark checks every answer it shows.
        marks += [pytest.mark.spark, pytest.mark.slow]
    elif path.stem in THOROUGH:
        marks.append(pytest.mark.thorough)
    else:
        marks.append(pytest.mark.slow)
    return pytest.param(path, id=path.stem, marks=marks)


def test_notebooks_read_data_through_the_resolver():
    for path in TUTORIALS:
        for name in datasets_read_by(path):
            assert name in DATASETS, f"{path.name} reads unknown data set {name!r}"
        code = _code(path)
        assert not re.search(r"""["']shared["']|["'][^"'\n]*shared/data""", code), f"{path.name} looks for ../shared/data itself"
        for loader in re.findall(r"datasets\.(load_\w+)\(\s*\)", code):
            pytest.fail(f"{path.name} calls {loader}() without naming its data set in data_path(...)")


def test_spark_notebooks_are_recognised():
    assert uses_spark(Path(__file__).resolve().parents[2] / "tutorials" / "spark.ipynb")
    assert not any(uses_spark(p) for p in TUTORIALS if p.stem in {"quickstart", "polars", "pufferfish"})


@pytest.mark.parametrize("path", TUTORIALS, ids=[p.stem for p in TUTORIALS])
def test_every_tutorial_compiles(path):
    """Every code cell is valid Python (IPython's ``%magics`` and ``!commands`` aside), and every
    cell has its own id: the cheap check of a notebook that the default run does not execute."""
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    # nbformat 4.5 wants an id on every cell, and refuses the notebook under warnings-as-errors
    assert all(isinstance(cell.get("id"), str) and cell["id"] for cell in cells), f"{path.name}: a cell without an id"
    assert len({cell["id"] for cell in cells}) == len(cells), f"{path.name}: two cells share an id"
    for number, cell in enumerate(cells):
        if cell["cell_type"] == "code":
            source = "\n".join(line for line in "".join(cell["source"]).splitlines() if not line.lstrip().startswith(("%", "!")))
            compile(source, f"{path.name}, cell {number}", "exec")


@pytest.mark.parametrize("path", [_param(p) for p in TUTORIALS])
def test_tutorial_runs(path):
    skip_without_data(datasets_read_by(path), path.name)
    spark = uses_spark(path)
    if spark and (reason := spark_unavailable()) is not None:
        pytest.skip(f"{path.name} uses Spark: {reason}")
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    notebook = nbformat.read(path, as_version=4)
    timeout = SPARK_CELL_TIMEOUT_S if spark else CELL_TIMEOUT_S
    client = nbclient.NotebookClient(notebook, timeout=timeout, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}})
    client.execute()
    errors = [o for cell in notebook.cells if cell.cell_type == "code" for o in cell.get("outputs", []) if o.output_type == "error"]
    assert not errors
