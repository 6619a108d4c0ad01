"""Every notebook in tutorials/ runs top to bottom (executed with nbclient, cwd = tutorials/).

A notebook reads a real data set through ``dpg.datasets.data_path("<name>")``; it is skipped,
with the resolver's reason, when one of the data sets it names cannot be resolved (the tests do
not download unless ``OPENDP_GRAPH_DOWNLOAD=1``; see ``conftest.py``), and it carries the
``needs_data`` marker.
"""

import json
import re
from pathlib import Path

import pytest

from conftest import skip_without_data
from opendp_graph.datasets import DATASETS

TUTORIALS = sorted((Path(__file__).resolve().parents[1] / "tutorials").glob("*.ipynb"))
DATA_CALL = re.compile(r"""data_path\(\s*["']([^"']+)["']""")


def _code(path: Path) -> str:
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    return "\n".join("".join(cell["source"]) for cell in cells if cell["cell_type"] == "code")


def datasets_read_by(path: Path) -> list[str]:
    """The data sets a notebook names in ``data_path("...")`` calls of its code cells."""
    return sorted(set(DATA_CALL.findall(_code(path))))


def _param(path: Path):
    marks = [pytest.mark.needs_data] if datasets_read_by(path) else []
    return pytest.param(path, id=path.stem, marks=marks)


def test_notebooks_read_data_through_the_resolver():
    for path in TUTORIALS:
        for name in datasets_read_by(path):
            assert name in DATASETS, f"{path.name} reads unknown data set {name!r}"
        code = _code(path)
        assert not re.search(r"""["']shared["']|["'][^"'\n]*shared/data""", code), f"{path.name} looks for ../shared/data itself"
        for loader in re.findall(r"datasets\.(load_\w+)\(\s*\)", code):
            pytest.fail(f"{path.name} calls {loader}() without naming its data set in data_path(...)")


@pytest.mark.parametrize("path", [_param(p) for p in TUTORIALS])
def test_tutorial_runs(path):
    skip_without_data(datasets_read_by(path), path.name)
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    notebook = nbformat.read(path, as_version=4)
    client = nbclient.NotebookClient(notebook, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}})
    client.execute()
    errors = [o for cell in notebook.cells if cell.cell_type == "code" for o in cell.get("outputs", []) if o.output_type == "error"]
    assert not errors
