"""Shared test configuration: Hypothesis profiles.

``SEMREPORT_HYPOTHESIS_PROFILE`` picks one: ``default`` (fast, for local runs),
``ci`` (more examples, still bounded) or ``thorough`` (many examples).
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

settings.register_profile("default", max_examples=40, deadline=None)
settings.register_profile(
    "ci", max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile(
    "thorough", max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile(os.environ.get("SEMREPORT_HYPOTHESIS_PROFILE", "default"))
