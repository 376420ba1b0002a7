"""Fixtures of the live-operations suite: the e2e fixtures (built mpack, shared real clusters, drivers killed by pid)."""
import uuid

import pytest

from e2e.conftest import drivers, mpack, require_line  # noqa: F401 (kafka_pool: tests/conftest.py)
from realkafka import cluster as rk


@pytest.fixture
def three_clusters(request, mpack, kafka_pool, drivers):
    """A case on its module's LINE with clusters a, b and c: (clusters, a run id for its topics, a free REST port)."""
    require_line(request.module.LINE)
    return kafka_pool("a", "b", "c"), uuid.uuid4().hex[:6], rk.free_port()
