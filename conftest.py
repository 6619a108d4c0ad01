"""The doctests of the package (``opendp_graph/``, collected with ``--doctest-modules``) run with
OpenDP's features enabled, as a user of this package would. Here, at the root of the repository,
not in the package: an installed module must not switch on OpenDP's trust flags."""

import opendp.prelude as dp

dp.enable_features("contrib", "honest-but-curious")

import pytest  # noqa: E402

#: Doctests whose time is OpenDP's own search for a Polars release's noise scale (about 600 steps
#: of 6 ms each under zCDP: 12 s and 7 s here, 3.5 s per release or summary). They run in the
#: ``thorough`` tier (CI runs it); the default run keeps the other Polars doctests and its margin
#: under 6 minutes.
THOROUGH_DOCTESTS = ("opendp_graph.polars._context.compositor", "opendp_graph.polars._context.UnitContext.accounting")


@pytest.hookimpl(tryfirst=True)  # before ``-m`` deselects by marker
def pytest_collection_modifyitems(config, items):
    for item in items:
        if item.nodeid.split("::")[-1] in THOROUGH_DOCTESTS:
            item.add_marker(pytest.mark.thorough)
