"""What edge DP promises on dependent graphs (Hehir, Niu & Slavković, *Interpreting Network DP*).

Use ``dpg.interpret.<name>`` (nothing is lifted to the top level):

* :func:`ergm_alpha` — the α of Lemma 4.1 / Corollary 4.2 for an ERGM (exact on ≤ 7 nodes,
  and the paper's ``2ζ`` bound from change statistics for any size); :class:`ERGM`,
  :func:`change_statistics`, :func:`ergm_statistics` are the Graph-level helpers;
* :func:`edge_secret_guarantee` — ε (and δ) of an OpenDP measurement on graphs plus α, i.e. the
  edge-secret Pufferfish guarantee of Lemma 4.1, with :func:`describe_guarantee` for a
  plain-language summary;
* :func:`queens_distribution` — the paper's Example 1 (two queens) on a few nodes, exactly, and
  :func:`attack_accuracy` — how often the paper's test finds the queens' edge from a noisy count;
* :func:`choose_noise` — Laplace, Gaussian through zCDP or the Pufferfish δ-relaxation for one
  query at a target ``(ε, δ)``, compared from public figures (lifted to ``dpg.choose_noise``).
"""

from ._ergm import ERGM, AlphaReport, change_statistics, ergm_alpha, ergm_statistics
from ._guarantee import EdgeSecretGuarantee, describe_guarantee, edge_secret_guarantee
from ._noise import NoiseChoice, NoiseOption, choose_noise
from ._queens import attack_accuracy, queens_alpha, queens_count_distributions, queens_distribution, queens_exact_epsilon

__all__ = [
    "ERGM",
    "AlphaReport",
    "change_statistics",
    "ergm_alpha",
    "ergm_statistics",
    "EdgeSecretGuarantee",
    "describe_guarantee",
    "edge_secret_guarantee",
    "queens_alpha",
    "queens_count_distributions",
    "queens_distribution",
    "queens_exact_epsilon",
    "attack_accuracy",
    "NoiseChoice",
    "NoiseOption",
    "choose_noise",
]
