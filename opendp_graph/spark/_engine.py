"""The one place that imports pyspark (lazily), with the message that says how to get it."""

from __future__ import annotations

from types import ModuleType
from typing import Any

__all__ = ["pyspark_sql", "functions", "is_dataframe", "small_frame"]

_INSTALL = 'the Spark path needs pyspark 4 and pyarrow: pip install "opendp-graph[spark]" (and Java 17)'


def pyspark_sql() -> ModuleType:
    """``pyspark.sql``, or an ``ImportError`` saying how to install it."""
    try:
        import pyarrow  # noqa: F401  (every transfer to and from Spark goes through Arrow)
        import pyspark.sql as sql
    except ImportError as e:
        raise ImportError(_INSTALL) from e
    return sql


def functions() -> Any:
    """``pyspark.sql.functions``."""
    pyspark_sql()
    import pyspark.sql.functions as F

    return F


def is_dataframe(value: Any) -> bool:
    """Whether ``value`` is a Spark DataFrame (classic or Connect), without importing pyspark
    when it is not even loaded (then it cannot be one)."""
    import sys

    if "pyspark" not in sys.modules:
        return False
    try:
        from pyspark.sql import DataFrame
    except ImportError:  # pragma: no cover - pyspark loaded without its SQL dependencies
        return False
    if isinstance(value, DataFrame):
        return True
    # A Connect DataFrame exists only once its module is loaded. Importing it here could end the
    # process: pyspark's Connect import calls sys.exit(0) when __main__ has no __spec__ or
    # __file__ (python -c, a pytest-xdist worker).
    connect = sys.modules.get("pyspark.sql.connect.dataframe")
    return connect is not None and isinstance(value, connect.DataFrame)


def small_frame(session: Any, columns: dict[str, tuple[list, str]]) -> Any:
    """A small driver-side table as a Spark DataFrame, through Arrow (no pandas). ``columns``
    maps each name to ``(values, arrow type name)``, e.g. ``{"rank": (ranks, "int64")}``, so that
    an empty table still has typed columns."""
    import pyarrow as pa

    return session.createDataFrame(pa.table({name: pa.array(values, type=getattr(pa, kind)()) for name, (values, kind) in columns.items()}))
