"""Settings for the test run: the real embedded PostgreSQL, django-q2 tasks run synchronously."""

import os

os.environ.setdefault("DEBUG", "true")

from config.settings import *  # noqa: F403
from config.settings import Q_CLUSTER

Q_CLUSTER["sync"] = True
OPENAI_API_KEY = ""  # tests that want the online path point at the scripted server themselves
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]

# A test database per run, so concurrent runs (developers, CI, helpers) never drop each other's.
DATABASES["default"]["TEST"] = {"NAME": f"test_memory_{os.getpid()}"}  # noqa: F405

# Each test starts from empty throttle counters (tests/api clears the cache without a database);
# the shared database cache of production is exercised across real server processes by tests/serving.
CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}

# The end / idle / every-N triggers are tested offline, each on its own; the tests of learning each
# turn (tests/chat/test_learned_inline.py, the browser's) turn it on with the `settings` fixture.
CHAT_LEARN_EACH_TURN_OFFLINE = False
