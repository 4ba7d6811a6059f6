import pytest


@pytest.fixture(autouse=True)
def quick_accounts(settings) -> None:
    """No sign-up limit, finished games counted at once (tests/conftest.py makes password hashing fast)."""
    settings.FOLLOWUPS_INLINE = True
    # allauth's own limits (sign-ups per address...) count in the cache, shared by every test.
    settings.ACCOUNT_RATE_LIMITS = False
