"""Session-wide: no test cluster outlives the test session on this host."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.hostclean import sweep


@pytest.fixture(scope="session", autouse=True)
def _release_leftover_clusters(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    yield
    sweep(tmp_path_factory.getbasetemp())
