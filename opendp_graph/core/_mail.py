"""What e-mail adds to a subject line, shared by the text front end and the Enron reader."""

from __future__ import annotations

import re

__all__ = ["REPLY_MARKERS"]

#: ``RE:``, ``FW:``, ``Fwd[2]:`` … at the start of a subject, any number of them, any case. One
#: ``\s*`` between a marker and its colon (the optional ``[n]`` takes its own): two adjacent ``\s*``
#: made a marker followed by n spaces and no colon cost n² steps, so a message could stall a release.
REPLY_MARKERS = re.compile(r"^\s*(?:(?:re|fw|fwd)\s*(?:\[\d+\]\s*)?:\s*)+", re.IGNORECASE)
