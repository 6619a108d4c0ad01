"""Stable graph queries. Each ``make_x(input_domain, input_metric, ...)`` has a ``then_x`` twin.

Their stability rules, and those Blowfish and Pufferfish add, are in one table:
:mod:`opendp_graph.transformations.rules`.
"""

from . import rules
from ._core import make_graph_transformation, then, then_graph_transformation
from .degrees import *  # noqa: F403
from .degrees import __all__ as _degrees_all
from .label_vectors import *  # noqa: F403
from .label_vectors import __all__ as _label_vectors_all
from .labels import *  # noqa: F403
from .labels import __all__ as _labels_all
from .projection import *  # noqa: F403
from .projection import __all__ as _projection_all
from .rules import resolve_stability, stability_rule, supported_metrics
from .subgraphs import *  # noqa: F403
from .subgraphs import __all__ as _subgraphs_all
from .triangles import *  # noqa: F403
from .triangles import __all__ as _triangles_all

__all__ = [
    "make_graph_transformation",
    "then_graph_transformation",
    "resolve_stability",
    "stability_rule",
    "supported_metrics",
    "then",
    *_degrees_all,
    *_label_vectors_all,
    *_labels_all,
    *_projection_all,
    *_subgraphs_all,
    *_triangles_all,
]
