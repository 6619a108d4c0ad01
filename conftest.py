"""The doctests of the package (``opendp_graph/``, collected with ``--doctest-modules``) run with
OpenDP's features enabled, as a user of this package would. Here, at the root of the repository,
not in the package: an installed module must not switch on OpenDP's trust flags."""

import opendp.prelude as dp

dp.enable_features("contrib", "honest-but-curious")
