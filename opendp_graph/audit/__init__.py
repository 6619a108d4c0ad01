"""(in progress) The audit part of opendp-graph. Names in ``__all__`` are lifted to the top level."""

__all__: list[str] = []
