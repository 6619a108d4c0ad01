"""Doctests run with OpenDP's features enabled, as a user of this package would."""

import opendp.prelude as dp

__all__: list[str] = []  # nothing public: pytest configuration only

dp.enable_features("contrib", "honest-but-curious")
