"""Doctests run with OpenDP's features enabled, as a user of this package would."""

import opendp.prelude as dp

dp.enable_features("contrib", "honest-but-curious")
