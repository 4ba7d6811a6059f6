from collections.abc import AsyncIterator

import pytest_asyncio
from channels.db import database_sync_to_async
from django.db import connections


@pytest_asyncio.fixture(autouse=True)
async def _close_consumer_connections() -> AsyncIterator[None]:
    """Close the connection the consumer's database thread opened, so the test database can be dropped."""
    yield
    await database_sync_to_async(connections.close_all)()
