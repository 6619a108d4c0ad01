"""``docs/threshold_correction.md`` (the report for OpenDP): its reproduction runs as written, and
what it prints agrees with the exact δ it states and with the corrected constructors' maps."""

import math
import re
from pathlib import Path

import opendp.prelude as dp
import pytest

import opendp_graph as dpg

REPORT = Path(__file__).resolve().parents[2] / "docs" / "threshold_correction.md"


def test_the_reproduction_runs_and_shows_the_missing_mass(capsys):
    block = re.search(r"```python\n(.*?)```", REPORT.read_text(encoding="utf-8"), re.S).group(1)
    scope: dict = {}
    exec(compile(block, str(REPORT), "exec"), scope)  # noqa: S102 - our own document's example
    printed = capsys.readouterr().out
    assert printed.startswith("reported δ 0.0364, exact 0.0989, measured ")
    reported, exact, measured = scope["reported"], scope["exact"], scope["measured"]
    sigma = math.sqrt(exact * (1 - exact) / 20_000)
    assert abs(measured - exact) < 6 * sigma  # fails with probability < 1e-8
    assert measured - reported > 6 * sigma  # OpenDP's figure is outside the band
    assert exact == pytest.approx(reported * math.e, rel=1e-9)  # the factor e^{1/scale}


def test_the_corrected_constructor_states_the_exact_delta():
    domain = dp.map_domain(dp.atom_domain(T=dp.String), dp.atom_domain(T=dp.i64))
    metric = dp.l01inf_distance(dp.absolute_distance(T=dp.i64))
    dp.enable_features("contrib", "honest-but-curious")
    ours = dpg.make_corrected_laplace_threshold(domain, metric, scale=1.0, threshold=3)
    r = math.exp(-1.0)
    assert ours.map((1, 1, 1))[1] == pytest.approx(r**2 / (1 + r), rel=1e-9)


def test_the_corrected_names_are_not_opendps():
    """A constructor of ours never shadows an OpenDP name with another privacy map (issue 42)."""
    for name in dir(dpg):
        if name.startswith(("make_", "then_")):
            assert not hasattr(dp.m, name) and not hasattr(dp.t, name), f"dpg.{name} shadows OpenDP's {name}"
