"""Every notebook in tutorials/ runs top to bottom (executed with nbclient, cwd = tutorials/)."""

from pathlib import Path

import pytest

TUTORIALS = sorted((Path(__file__).resolve().parents[1] / "tutorials").glob("*.ipynb"))


@pytest.mark.parametrize("path", TUTORIALS, ids=lambda p: p.stem)
def test_tutorial_runs(path):
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    notebook = nbformat.read(path, as_version=4)
    client = nbclient.NotebookClient(notebook, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}})
    client.execute()
    errors = [o for cell in notebook.cells if cell.cell_type == "code" for o in cell.get("outputs", []) if o.output_type == "error"]
    assert not errors
