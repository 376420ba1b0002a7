"""Fixtures of the live-operations suite: the e2e fixtures (built mpack, shared real clusters, drivers killed by pid)."""
from e2e.conftest import drivers, kafka_pool, mpack, require_line  # noqa: F401
