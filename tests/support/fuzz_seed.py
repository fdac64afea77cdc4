"""The schemathesis seed of this test session: ``HARNESS_FUZZ_SEED``, or a fresh random one.

Every run of the suite fuzzes with a new seed unless one is given; the seed is printed in pytest's
header and in every failure, so a finding replays with ``HARNESS_FUZZ_SEED=<seed> make test``.
"""

from __future__ import annotations

import os
import random

__all__ = ("FUZZ_SEED", "replay_hint")

FUZZ_SEED = os.environ.get("HARNESS_FUZZ_SEED") or str(random.SystemRandom().randrange(1, 2**31))


def replay_hint() -> str:
    return f"schemathesis seed {FUZZ_SEED}: replay with HARNESS_FUZZ_SEED={FUZZ_SEED}"
