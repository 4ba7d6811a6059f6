from collections.abc import AsyncIterator

import pytest_asyncio
from channels.db import database_sync_to_async
from django.db import connections

from games import sockets


@pytest_asyncio.fixture(autouse=True)
async def _close_consumer_connections() -> AsyncIterator[None]:
    """Close the connection the consumer's database thread opened, so the test database can be dropped.

    Background work of the sockets (the presence sweep, a presence frame still due) is
    stopped first: it would open a connection again after this.
    """
    yield
    await sockets.settle()
    await database_sync_to_async(connections.close_all)()
