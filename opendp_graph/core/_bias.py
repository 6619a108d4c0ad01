"""What a transformation leaves out of the answer it feeds the noise: a cap, a truncation or a
projection drops part of the data before the noise, so a release's interval covers the
*capped* answer, not the true one. A transformation that can drop data states it here, in words
with its public parameters; :func:`opendp_graph.accuracy` reads the statements along a chain and
names them beside the half-width (``Accuracy.not_included``)."""

from __future__ import annotations

from typing import Any

__all__ = ["state_bias", "stated_bias"]

_ATTRIBUTE = "_dpg_not_included"


def state_bias(transformation: Any, statement: str | None) -> Any:
    """Record on ``transformation`` what it drops (``None``: nothing, e.g. a cap that cannot bind
    on its domain); returns ``transformation``."""
    if statement is not None:
        setattr(transformation, _ATTRIBUTE, statement)
    return transformation


def stated_bias(transformation: Any) -> str | None:
    """The statement :func:`state_bias` recorded, or ``None``."""
    return getattr(transformation, _ATTRIBUTE, None)
