"""Audits of privacy claims: exact privacy loss on tiny graphs and empirical ε lower bounds.

Entry points (not lifted to the top level, use ``dpg.audit.<name>``):

* :func:`empirical_epsilon` — a Clopper–Pearson lower bound on ε (or ε at a given δ) from a
  threshold attack against any mechanism, with a seeded sampler of inputs per hypothesis;
* :func:`exact_epsilon` — the exact privacy loss of a Laplace-noised query for edge secrets (or
  any pair of input distributions) on a finite, enumerated distribution of graphs;
* :class:`GraphDistribution` — an enumerated distribution over all graphs on a few nodes.
"""

from ._empirical import EmpiricalEpsilon, clopper_pearson, empirical_epsilon

__all__: list[str] = []
from ._exact import ExactEpsilon, GraphDistribution, exact_epsilon, laplace_privacy_loss
