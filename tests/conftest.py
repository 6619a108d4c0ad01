"""Shared test configuration: OpenDP features, and the real data sets through the package's resolver.

The real data sets are found by :func:`opendp_graph.datasets.data_path` like everywhere else
(``$OPENDP_GRAPH_DATA``, ``../shared/data`` beside the checkout, the per-user cache). Tests never
download: ``OPENDP_GRAPH_DOWNLOAD`` is set to ``0`` unless the caller set it (run
``OPENDP_GRAPH_DOWNLOAD=1 pytest`` to let the resolver fill its cache first; the resolver's own
tests download from a local HTTP server only).

A test that needs a data set asks for it with the ``dataset`` fixture
(``dataset("enron-perry-wolfe")`` → its folder) or, as the older tests do, ``shared_data /
"enron-perry-wolfe"``; either skips the test, with the resolver's reason, when the data set
cannot be resolved. Such tests get the ``needs_data`` marker automatically
(``pytest -m needs_data`` selects them).

The folders mirror the package's layers (``tests/core/``, ``tests/transformations/``, ...;
``tests/package/`` for the README, tutorials, docs, command and layering). ``tests`` and each
folder are packages, so two folders may hold files of the same name, and a test reuses another's
brute-force helpers by their full name (``test_node_degrees`` reads
``tests.transformations.test_node_insertion``'s insertion pairs).
"""

import os
import shutil
import sys
from pathlib import Path

import opendp.prelude as dp
import pytest

from opendp_graph.datasets import _resolve

dp.enable_features("contrib", "honest-but-curious")

# by default the tests do not touch the network; an explicit OPENDP_GRAPH_DOWNLOAD=1 opts in
os.environ.setdefault(_resolve.ENV_DOWNLOAD, "0")

REPO = Path(__file__).resolve().parents[1]
DATA_FIXTURES = {"shared_data", "dataset"}
_resolved: dict[str, Path | str] = {}


def resolve_or_reason(name: str) -> Path | str:
    """The folder of data set ``name``, or the reason it cannot be resolved (memoised)."""
    if name not in _resolved:
        try:
            _resolved[name] = _resolve.data_path(name)
        except _resolve.DataUnavailableError as error:
            _resolved[name] = f"real data set {name!r} not available: {error.reason}"
    return _resolved[name]


def skip_without_data(names, reader: str) -> None:
    """Skip the running test, with the resolver's reason, unless every data set in ``names``
    (those ``reader``, e.g. a notebook, reads) can be resolved."""
    for name in names:
        found = resolve_or_reason(name)
        if isinstance(found, str):
            pytest.skip(f"{reader} reads the data set {name!r}: {found}")


def pytest_configure(config):
    config.addinivalue_line("markers", "needs_data: reads a real data set (skipped when the resolver cannot find it)")
    config.addinivalue_line("markers", "spark: runs on the local Spark session (skipped without pyspark or Java)")


def pytest_collection_modifyitems(config, items):
    for item in items:
        fixtures = set(getattr(item, "fixturenames", ()))
        if DATA_FIXTURES & fixtures:
            item.add_marker(pytest.mark.needs_data)
        if "spark" in fixtures:
            item.add_marker(pytest.mark.spark)
            item.add_marker(pytest.mark.timeout(SPARK_TIMEOUT_S))


def pytest_xdist_make_scheduler(config, log):
    """The tests run on two pytest-xdist workers (pyproject's addopts, ``--dist loadgroup``): one
    file at a time goes to whichever worker is free (so that a module's cached brute-force tables
    and fixtures are built by one worker, not by both), except the tests whose id names Spark
    (``tests/spark/test_spark.py``, ``test_tutorial_runs[spark]``, the README's ``…-spark`` blocks),
    which all go to one worker, first, so that one JVM (the ``spark`` session) serves them all
    while the other worker runs the rest. (Marks cannot group them: with pytest 9 the
    ``xdist_group`` mark no longer changes the test ids that the scheduler reads.)"""
    if config.getvalue("dist") != "loadgroup":
        return None  # another --dist on the command line: xdist's own scheduler
    from xdist.scheduler import LoadGroupScheduling

    # both hooks are xdist's private methods (3.x): if a release renames them, xdist's own
    # loadgroup scheduler runs instead (slower, the same tests), rather than the run failing
    if not all(callable(getattr(LoadGroupScheduling, name, None)) for name in ("_split_scope", "_assign_work_unit")):
        return None

    class SparkOnOneWorker(LoadGroupScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return "spark" if "spark" in nodeid.lower() else nodeid.split("::", 1)[0]

        def _assign_work_unit(self, node) -> None:
            queue = getattr(self, "workqueue", None)
            if hasattr(queue, "move_to_end") and "spark" in queue:  # the JVM's minute overlaps the other worker's files
                queue.move_to_end("spark", last=False)
            super()._assign_work_unit(node)

    return SparkOnOneWorker(config, log)


SPARK_TIMEOUT_S = 600  # a Spark job that runs out of heap can hang instead of failing


@pytest.fixture(scope="session")
def spark():
    """One local Spark session for the whole run (``local[2]``, UI off, 4 shuffle partitions;
    starting one costs 6–10 s, a second one in the same process 0.2 s). Skips, with the reason,
    without pyspark/pyarrow (``pip install -e ".[spark]"``) or Java."""
    for module in ("pyspark", "pyarrow"):
        pytest.importorskip(module, reason=f'the Spark tests need {module}: pip install -e ".[test,spark]"')
    if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
        pytest.skip("the Spark tests need Java 17 (no java on PATH and no JAVA_HOME)")
    import opendp_graph as dpg

    session = dpg.spark.local_session(2, shuffle_partitions=4)
    yield session
    session.stop()


@pytest.fixture(scope="session")
def dataset():
    """``dataset(name)`` → the folder of real data set ``name``; skips the test when it cannot be
    resolved (the reason says where the resolver looked)."""

    def get(name: str) -> Path:
        found = resolve_or_reason(name)
        if isinstance(found, str):
            pytest.skip(found)
        return found

    return get


class _DataRoot(type(Path())):
    """A folder holding the resolved data sets as ``<name>/``; ``root / name`` skips the test
    when data set ``name`` could not be resolved."""

    _unresolved: dict[str, str] = {}

    def __truediv__(self, key):
        if isinstance(key, str) and key in self._unresolved:
            pytest.skip(self._unresolved[key])
        return Path(super().__truediv__(key))


@pytest.fixture(scope="session")
def shared_data(tmp_path_factory) -> Path:
    """A folder with one sub-folder per real data set, each resolved by ``data_path`` (the common
    parent when they all come from the same place, else a folder of symbolic links);
    ``shared_data / name`` skips when ``name`` cannot be resolved, and the fixture skips when none
    can."""
    found = {name: resolve_or_reason(name) for name in _resolve.DATASETS}
    folders = {name: f for name, f in found.items() if isinstance(f, Path)}
    if not folders:
        first, *others = found
        pytest.skip(f"{found[first]} (likewise {', '.join(map(repr, others))})")
    parents = {f.parent for f in folders.values()}
    if len(parents) == 1 and all(f.name == name for name, f in folders.items()):
        root = _DataRoot(parents.pop())
    else:
        root = _DataRoot(tmp_path_factory.mktemp("data-root"))
        for name, folder in folders.items():
            (Path(root) / name).symlink_to(folder, target_is_directory=True)
    root._unresolved = {name: reason for name, reason in found.items() if isinstance(reason, str)}
    return root


@pytest.fixture(scope="session")
def python_output():
    """``python_output(code)``: what ``code`` prints when run by a fresh interpreter (this one's
    ``sys.executable``; a fresh one sees imports and warnings as a user's first ``import`` would)."""
    import subprocess

    def run(code: str) -> str:
        return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout

    return run
