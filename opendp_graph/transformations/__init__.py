"""Stable graph queries. Each ``make_x(input_domain, input_metric, ...)`` has a ``then_x`` twin."""

from ._core import make_graph_transformation, resolve_stability, stability_rule, supported_metrics, then
from .degrees import *  # noqa: F401,F403
from .degrees import __all__ as _degrees_all
from .labels import *  # noqa: F401,F403
from .labels import __all__ as _labels_all
from .projection import *  # noqa: F401,F403
from .projection import __all__ as _projection_all
from .triangles import *  # noqa: F401,F403
from .triangles import __all__ as _triangles_all

__all__ = [
    "make_graph_transformation",
    "resolve_stability",
    "stability_rule",
    "supported_metrics",
    "then",
    *_degrees_all,
    *_labels_all,
    *_projection_all,
    *_triangles_all,
]
