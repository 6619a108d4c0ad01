"""Tools that try to break privacy claims: brute-force stability checks on small graphs, the exact
privacy loss on tiny graphs, and empirical ε lower bounds.

Use ``dpg.verify.<name>`` (nothing is lifted to the top level):

* :mod:`.testing` — enumerate small graphs and their neighbours and compare
  ``d_out(f(x), f(x'))`` with a stability map (:func:`~.testing.check_stability`);
* :func:`empirical_epsilon` — a Clopper–Pearson lower bound on ε (or ε at a given δ) from a
  threshold attack against any mechanism, with a seeded sampler of inputs per hypothesis;
* :func:`exact_epsilon` — the exact privacy loss of a Laplace-noised query for edge secrets (or
  any pair of input distributions) on a finite, enumerated distribution of graphs;
* :class:`GraphDistribution` — an enumerated distribution over all graphs on a few nodes;
* :func:`exact_renyi_divergence` — upper bounds, tight to rounding, on the Rényi divergences
  ``D_α`` of a discrete Gaussian release between the two secrets of every pair of a small
  labelled structure, for every attacker of a correlation model's class (the zCDP-style Rényi
  Pufferfish guarantee ``D_α ≤ α·ρ`` of :mod:`opendp_graph.pufferfish.metric`), with
  :func:`secret_laws` (the model's conditional laws of the labellings) and
  :func:`discrete_gaussian_renyi` (two mixtures of discrete Gaussians).
"""

from . import testing
from ._empirical import EmpiricalEpsilon, clopper_pearson, empirical_epsilon
from ._exact import ExactEpsilon, GraphDistribution, exact_epsilon, laplace_privacy_loss
from ._renyi import ExactRenyi, SecretLaws, discrete_gaussian_renyi, exact_renyi_divergence, secret_laws

__all__ = [
    "EmpiricalEpsilon",
    "clopper_pearson",
    "empirical_epsilon",
    "ExactEpsilon",
    "GraphDistribution",
    "exact_epsilon",
    "laplace_privacy_loss",
    "ExactRenyi",
    "SecretLaws",
    "discrete_gaussian_renyi",
    "exact_renyi_divergence",
    "secret_laws",
]
