"""The server tests' client: one real server over stdio per test module, its state reset per test.

A module that wants other `autodd` settings for its server sets `SERVER_SETTINGS`.
Modules that start their own servers (test_lifetime.py) simply do not use `client`.
"""

import pytest
import pytest_lsp

from tests.support import server_harness as h


@pytest_lsp.fixture(config=h.server_config(), scope="module")
async def client(lsp_client: h.EditorClient, request, tmp_path_factory):
    settings = getattr(request.module, "SERVER_SETTINGS", None)
    await h.initialize(lsp_client, tmp_path_factory.mktemp("root"), settings=settings)
    yield
    await lsp_client.shutdown_session()


@pytest.fixture(autouse=True)
def fresh_client_state(request):
    """Forget what earlier tests of the module saw (only where the test uses the shared client)."""
    if "client" in request.fixturenames:
        h.reset(request.getfixturevalue("client"))
