"""The live site's settings in the browser tests: the site's own, with a fast password hasher.

The default hasher (PBKDF2, a million rounds) spends most of a second of CPU on each sign-up,
sign-in and staff account the tests make, several a test in some, on a machine the browsers and
servers of other tests share. Passwords are checked the same way whichever hasher stores them
(tests/conftest.py sets the same one for the tests without a browser).
"""

from yahtzee.settings import *  # noqa: F403

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
