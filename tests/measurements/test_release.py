"""dpg.release: an error raised by a check inside a measurement reads as itself."""

from __future__ import annotations

import opendp.prelude as dp
import polars as pl
import pytest

import opendp_graph as dpg

dp.enable_features("contrib", "honest-but-curious")


def test_a_check_inside_a_release_is_raised_as_itself():
    meas = dpg.polars.make_private_total(dpg.polars.message_log_domain(), dpg.polars.person_log_distance(), dp.loss_of(epsilon=1.0), max_contribution=100)
    with pytest.raises(dp.OpenDPException):  # the plain call: an FFI trace
        meas(pl.DataFrame({"sender": [1], "recipient": [2]}))
    with pytest.raises(TypeError, match=r"^expected a MessageLog .* got DataFrame$") as info:
        dpg.release(meas, pl.DataFrame({"sender": [1], "recipient": [2]}))
    assert "Traceback" in info.value.opendp_trace


def _refusing(message):
    def function(x):
        raise ValueError(message)

    space = dp.atom_domain(T=float, nan=False), dp.absolute_distance(T=float)
    return dp.t.make_user_transformation(*space, *space, function, lambda d: d) >> dp.m.then_laplace(scale=1.0)


def test_a_multi_line_message_is_kept_whole():
    with pytest.raises(ValueError) as info:
        dpg.release(_refusing("the first line\nKeyError: not a new error, the second line"), 1.0)
    assert str(info.value) == "the first line\nKeyError: not a new error, the second line"


def test_an_opendp_error_that_is_not_a_callback_is_unchanged():
    error = dp.OpenDPException("FailedFunction", "a Rust-side failure")

    def meas(data):
        raise error

    with pytest.raises(dp.OpenDPException) as info:
        dpg.release(meas, 1.0)
    assert info.value is error


def test_results_pass_through():
    meas = dp.m.make_laplace(dp.atom_domain(T=float, nan=False), dp.absolute_distance(T=float), scale=1.0)
    assert isinstance(dpg.release(meas, 1.0), float)

