import pytest


@pytest.fixture(autouse=True)
def quick_accounts(settings) -> None:
    """A fast password hash for the many sign-ups here, no sign-up limit; finished games counted at once."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    settings.ACCOUNTS_COUNT_IN_BACKGROUND = False
    # allauth's own limits (sign-ups per address...) count in the cache, shared by every test.
    settings.ACCOUNT_RATE_LIMITS = False
