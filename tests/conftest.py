"""Shared test configuration: OpenDP features, and where the real data sets live."""

import os
from pathlib import Path

import opendp.prelude as dp
import pytest

dp.enable_features("contrib", "honest-but-curious")

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = Path(os.environ.get("OPENDP_GRAPH_DATA", REPO.parent / "shared" / "data"))


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """``../shared/data`` beside the checkout (or ``$OPENDP_GRAPH_DATA``); skips if absent."""
    if not SHARED_DATA.is_dir():
        pytest.skip(f"real data sets not found at {SHARED_DATA}")
    return SHARED_DATA
