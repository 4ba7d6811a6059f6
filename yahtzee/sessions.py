"""The session store: Django's database sessions, with a key read from the cookie only if a session could have it.

Django keeps any cookie value of eight characters or more as the key to look up. A cookie's
quoted value may hold anything (``"\\000"`` is a NUL), and PostgreSQL refuses a NUL even in a
query's parameter: such a cookie failed every page and every socket of its browser (a 500, and
an error in the log each time). A key Django makes is 32 lower-case letters and digits; any
other is no session's, and the browser is one without a session, as with no cookie at all.
"""

from __future__ import annotations

from django.contrib.sessions.backends.db import SessionStore as DatabaseStore

# Django's own lower bound for a key (SessionBase._validate_session_key), which the stubs do not declare.
KEY_MIN = 8


class SessionStore(DatabaseStore):
    def _validate_session_key(self, key: str | None) -> bool:
        return isinstance(key, str) and len(key) >= KEY_MIN and key.isascii() and key.isalnum()
