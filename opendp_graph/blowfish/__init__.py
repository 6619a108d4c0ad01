"""Blowfish privacy for undirected communication graphs, with VIP and standard people
(Nassar, Chicha, Al Bouna & Chbeir, *VIP Blowfish Privacy in Communication Graphs*).

* :class:`BlowfishPolicy`: who is protected (VIPs, or everyone) and with which discriminative
  secret graph (``attribute``, ``full``, ``partitioned``, ``distance_threshold``);
* :func:`blowfish_distance`: the policy distance as an OpenDP metric (descriptor
  :class:`BlowfishDistance`), under which every graph query of the package has a proven
  policy-specific sensitivity (:mod:`.rules`);
* the paper's VIP queries :func:`make_standard_degree_histogram` and
  :func:`make_vip_standard_histogram`.

>>> import opendp.prelude as dp, opendp_graph as dpg
>>> dp.enable_features("contrib", "honest-but-curious")
>>> n = 4
>>> space = dpg.graph_domain(num_nodes=n), dpg.blowfish_distance(dpg.BlowfishPolicy.full())
>>> (space >> dpg.then_degree_histogram(max_degree=3)).map(1)   # 2n
8
>>> (space >> dpg.then_cumulative_degree_histogram(max_degree=3)).map(1)   # 2(n-1), not n
6
"""

import functools

from . import rules
from .metric import BlowfishDistance, blowfish_distance, changed_pairs
from .policy import BlowfishPolicy
from .queries import (
    STANDARD_DEGREE_HISTOGRAM_L2,
    VIP_STANDARD_HISTOGRAM_L2,
    make_standard_degree_histogram,
    make_vip_standard_histogram,
    standard_degree_histogram,
    then_standard_degree_histogram,
    then_vip_standard_histogram,
    vip_standard_histogram,
)

__all__ = [
    "BlowfishPolicy",
    "BlowfishDistance",
    "blowfish_distance",
    "changed_pairs",
    "make_standard_degree_histogram",
    "then_standard_degree_histogram",
    "standard_degree_histogram",
    "make_vip_standard_histogram",
    "then_vip_standard_histogram",
    "vip_standard_histogram",
    "STANDARD_DEGREE_HISTOGRAM_L2",
    "VIP_STANDARD_HISTOGRAM_L2",
]


@functools.cache  # once per process
def _register_with_context() -> None:
    """Make ``ctx.query().standard_degree_histogram(...)`` and ``.vip_standard_histogram(...)``
    available in OpenDP's Context API (``dp.register``, once per process)."""
    import opendp.prelude as dp

    dp.register(make_standard_degree_histogram)
    dp.register(make_vip_standard_histogram)


_register_with_context()
