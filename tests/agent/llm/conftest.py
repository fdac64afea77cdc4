from __future__ import annotations

import pytest

from agent.llm.http_transport import RetryPolicy
from agent.llm.types import ChatMessage

API_KEY = "sk-test-0123456789abcdef"
MESSAGES = (
    ChatMessage("system", "Answer with a JSON object."),
    ChatMessage("user", "How do I reset my password?"),
)


class Sleeps(list[float]):
    """An injected ``sleep`` that records the backoff instead of waiting."""

    async def __call__(self, seconds: float) -> None:
        self.append(seconds)


@pytest.fixture
def sleeps() -> Sleeps:
    return Sleeps()


@pytest.fixture
def retry(sleeps: Sleeps) -> RetryPolicy:
    return RetryPolicy(attempts=3, base_delay_s=0.5, sleep=sleeps)
