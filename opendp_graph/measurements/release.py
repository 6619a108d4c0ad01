"""Run a release so that an error raised by a check reads as itself.

OpenDP runs the Python functions of user transformations and measurements from Rust. When one of
them raises (a precondition of this package refusing the data, say), OpenDP reports an
``OpenDPException`` whose message is the whole Python traceback, with the error itself on its
last line. :func:`release` calls the measurement and, in that case, raises the original error
type with the original message instead, so the one line a user needs is the one they see. The
trace is kept on the exception (``opendp_trace``).
"""

from __future__ import annotations

import builtins
from typing import Any

import opendp.prelude as dp

__all__ = ["release"]

_CALLBACK = "Continued stack trace from Exception in user-defined function"
_TRACEBACK = "Traceback (most recent call last):"


def _original(error: dp.OpenDPException) -> BaseException | None:
    """The Python error at the end of the callback's traceback, rebuilt (``None`` if there is
    none, or its type is not a built-in one). The error line is the first unindented line after
    the last traceback's frames; everything after it is its message, however many lines."""
    message = getattr(error, "message", None) or ""
    if _CALLBACK not in message or _TRACEBACK not in message:
        return None
    lines = message[message.rindex(_TRACEBACK) + len(_TRACEBACK) :].split("\n")[1:]
    start = next((i for i, line in enumerate(lines) if line and not line.startswith(" ")), None)
    if start is None:
        return None
    head, _, rest = lines[start].partition(": ")
    tail = lines[start + 1 :]
    while tail and tail[-1].strip() in ('")', ""):  # the closing quotes of OpenDP's nested FFI messages
        tail.pop()
    text = "\n".join([rest, *tail]).rstrip()
    kind = getattr(builtins, head.rsplit(".", 1)[-1], None)
    if not (isinstance(kind, type) and issubclass(kind, Exception)):
        return None
    try:
        out: Any = kind(text)  # Any: it is given the attribute opendp_trace below
    except Exception:  # an exception type whose constructor needs other arguments
        return None
    out.opendp_trace = message
    return out


def release(measurement: Any, data: Any) -> Any:
    """``measurement(data)``, except that an error raised inside one of the measurement's Python
    functions (a check refusing ``data``) is raised as itself: its type and its message, one
    line, instead of an ``OpenDPException`` holding the traceback (kept as ``opendp_trace``).
    Other OpenDP errors are raised unchanged.

    :param measurement: any OpenDP measurement (or transformation).
    :param data: its input.

    >>> import opendp.prelude as dp, opendp_graph as dpg, polars as pl
    >>> dp.enable_features("contrib", "honest-but-curious")
    >>> meas = dpg.polars.make_private_total(
    ...     dpg.polars.message_log_domain(), dpg.polars.person_log_distance(), dp.loss_of(epsilon=1.0), max_contribution=100)
    >>> dpg.release(meas, pl.DataFrame({"sender": [1], "recipient": [2]}))
    Traceback (most recent call last):
    TypeError: expected a MessageLog (read the table once with dpg.polars.message_log(table)), got DataFrame
    """
    try:
        return measurement(data)
    except dp.OpenDPException as error:
        original = _original(error)
        if original is None:
            raise
        raise original from None
