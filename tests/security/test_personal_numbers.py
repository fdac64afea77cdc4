"""Issue 24, finding 3: card numbers, IBANs and national ids written with other separators (slashes,
underscores, commas, several spaces, zero-width characters), in lower case or with dashes in an IBAN slipped
through the screen into checkpoints, the event log, the interaction log and the provider's request; a
zero-width-split card in a decision comment was stored as sent.

Over real HTTP (uvicorn), on the embedded and the shared stores, with a recording fake provider: each form
is refused as a message, a comment carrying one is masked, and nothing of the number is in any response, any
request the provider got, or any byte of any store. Then the same with numbers Hypothesis draws (random
separators, case, fullwidth and invisible characters, in random text), and the other way round: ordinary
text with digits is answered, not refused. Last, a real ``harness serve``: no log line carries one.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any, Generic, NamedTuple, TypeVar

import httpx
import msgspec
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from agent.config import LLMConfig
from agent.guardrails.refusals import REFUSALS
from tests.support.decisions import decision_for
from tests.support.harness_process import HarnessProcess
from tests.support.personal_numbers import PlantedNumber, carries, ordinary_texts, planted_in_text
from tests.support.recording_provider import ANSWER_TEXT, recording_provider
from tests.support.store_bytes import stored_bytes

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable
    from pathlib import Path

    from api.settings import Settings
    from tests.e2e.conftest import LiveServer
    from tests.support.shared_stores import SharedStores

QUESTION = "How do I change my plan?"
REFUND = "Please refund invoice INV-1002."
ZERO_WIDTH_CARD = PlantedNumber("4111\u200b1111\u200b1111\u200b1111", "4111111111111111", "pii_payment_card")
FORMS = {
    "card with slashes": PlantedNumber("4111/1111/1111/1111", "4111111111111111", "pii_payment_card"),
    "card with underscores": PlantedNumber("5555_5555_5555_4444", "5555555555554444", "pii_payment_card"),
    "card with commas": PlantedNumber("4012,8888,8888,1881", "4012888888881881", "pii_payment_card"),
    "card with several spaces": PlantedNumber("6011   1111   1111   1117", "6011111111111117", "pii_payment_card"),
    "national id with zero-width characters": PlantedNumber("078\u200b05\u200b1120", "078051120", "pii_national_id"),
    "iban in lower case": PlantedNumber("de89 3704 0044 0532 0130 00", "DE89370400440532013000", "pii_bank_account"),
    "iban with dashes": PlantedNumber("GB82-WEST-1234-5698-7654-32", "GB82WEST12345698765432", "pii_bank_account"),
}
T = TypeVar("T")
HTTP_EXAMPLES = settings(
    max_examples=8,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
"""Few examples a property over HTTP: each is a turn or two on a real server, on both store kinds."""


class Sent(NamedTuple, Generic[T]):
    result: T
    provider_requests: list[bytes]


def on_provider(settings: Settings, base_url: str) -> Settings:
    llm = LLMConfig(provider="openai", base_url=base_url, model="m", api_key="sk-test-recording-provider")
    return msgspec.structs.replace(settings, agent=msgspec.structs.replace(settings.agent, llm=llm))


class Traffic:
    """Every response body the test got and every request the provider got."""

    def __init__(self) -> None:
        self.responses: list[bytes] = []

    def chat(self, client: httpx.Client, message: str, session_id: str | None = None) -> dict[str, Any]:
        return self.post(client, "/chat", {"message": message, "session_id": session_id})

    def post(self, client: httpx.Client, path: str, body: dict[str, Any]) -> dict[str, Any]:
        response = client.post(path, json=body)
        self.responses.append(response.content)
        assert response.status_code == 200, response.text
        answer: dict[str, Any] = response.json()
        return answer


def leaks(numbers: Iterable[PlantedNumber], places: dict[str, bytes]) -> dict[str, list[str]]:
    """Where each number is still found: a store, a response, a provider request."""
    found = {number.text: [where for where, data in places.items() if carries(data, number)] for number in numbers}
    return {text: wheres for text, wheres in found.items() if wheres}


def everywhere(
    settings: Settings, stores: SharedStores | None, traffic: Traffic, provider_bodies: list[bytes]
) -> dict[str, bytes]:
    places = stored_bytes(settings.agent.data_dir, stores)
    places |= {f"response {index}": body for index, body in enumerate(traffic.responses)}
    places |= {f"provider request {index}": body for index, body in enumerate(provider_bodies)}
    return places


async def converse(serve: Callable[..., LiveServer], settings: Settings, work: Callable[[httpx.Client], T]) -> Sent[T]:
    """``work``'s blocking HTTP calls against a server on a recording provider, run off the event loop (which
    serves the provider): what ``work`` returned, and the bodies of the requests the provider got."""
    async with recording_provider() as provider:
        server = serve(on_provider(settings, provider.base_url))

        def run() -> T:
            with httpx.Client(base_url=server.url, timeout=30) as client:
                return work(client)

        result = await asyncio.to_thread(run)
        return Sent(result, [request.body for request in provider.requests])


@pytest.mark.parametrize("form", list(FORMS), ids=[name.replace(" ", "_") for name in FORMS])
async def test_a_number_written_this_way_is_refused_and_reaches_no_store_and_no_provider(
    form: str, serve: Callable[..., LiveServer], settings: Settings, stores: SharedStores | None
) -> None:
    number = FORMS[form]
    traffic = Traffic()

    def turns(client: httpx.Client) -> tuple[dict[str, Any], dict[str, Any]]:
        refused = traffic.chat(client, f"Here is my number: {number.text}, please use it")
        return refused, traffic.chat(client, QUESTION, refused["session_id"])

    (refused, answered), sent = await converse(serve, settings, turns)

    assert (refused["status"], refused["answer"]["text"]) == ("refused", REFUSALS[number.reason])
    assert (answered["status"], answered["answer"]["text"]) == ("completed", ANSWER_TEXT)
    assert len(sent) == 1, "only the question reached the model"
    assert leaks([number], everywhere(settings, stores, traffic, sent)) == {}


async def test_a_zero_width_split_card_in_a_decision_comment_is_masked_and_stored_nowhere(
    serve: Callable[..., LiveServer], settings: Settings, stores: SharedStores | None
) -> None:
    traffic = Traffic()

    def turns(client: httpx.Client) -> dict[str, Any]:
        paused = traffic.chat(client, REFUND)
        decision = decision_for(paused, "reject", f"They paid with {ZERO_WIDTH_CARD.text} by phone")
        return traffic.post(client, "/chat/resume", decision)

    rejected, sent = await converse(serve, settings, turns)

    assert rejected["status"] == "rejected"
    assert rejected["answer"]["text"].endswith("Note: They paid with [REDACTED CARD] by phone")
    assert leaks([ZERO_WIDTH_CARD], everywhere(settings, stores, traffic, sent)) == {}


async def test_a_zero_width_split_card_in_an_ag_ui_resume_comment_is_masked_and_stored_nowhere(
    serve: Callable[..., LiveServer], settings: Settings, stores: SharedStores | None
) -> None:
    traffic = Traffic()

    def turns(client: httpx.Client) -> str:
        paused = traffic.chat(client, REFUND)
        interrupt = f"{paused['run_id']}:{paused['pending_approval']['approval_id']}"
        payload = {"decision": "reject", "comment": f"Card {ZERO_WIDTH_CARD.text} on file"}
        resume = [{"interruptId": interrupt, "status": "resolved", "payload": payload}]
        body = {"threadId": paused["session_id"], "runId": "agui-resume", "messages": [], "resume": resume}
        response = client.post("/ag-ui", json=body)
        traffic.responses.append(response.content)
        assert response.status_code == 200, response.text
        return response.text

    stream, sent = await converse(serve, settings, turns)

    assert "Note: Card [REDACTED CARD] on file" in stream
    assert leaks([ZERO_WIDTH_CARD], everywhere(settings, stores, traffic, sent)) == {}


async def test_numbers_drawn_with_random_separators_case_and_invisible_characters_are_refused_everywhere(
    serve: Callable[..., LiveServer], settings: Settings, stores: SharedStores | None
) -> None:
    traffic = Traffic()
    planted: list[PlantedNumber] = []

    def turns(client: httpx.Client) -> None:
        @HTTP_EXAMPLES
        @given(message=planted_in_text())
        def refused(message: tuple[str, PlantedNumber]) -> None:
            text, number = message
            planted.append(number)
            assert traffic.chat(client, text)["status"] == "refused"

        refused()

    _, sent = await converse(serve, settings, turns)

    assert sent == [], "no refused message reached the model"
    assert leaks(planted, everywhere(settings, stores, traffic, sent)) == {}


async def test_numbers_drawn_any_way_in_decision_comments_are_stored_nowhere(
    serve: Callable[..., LiveServer], settings: Settings, stores: SharedStores | None
) -> None:
    traffic = Traffic()
    planted: list[PlantedNumber] = []

    def turns(client: httpx.Client) -> None:
        @HTTP_EXAMPLES
        @given(comment=planted_in_text(), decision=st.sampled_from(["approve", "reject"]))
        def masked(comment: tuple[str, PlantedNumber], decision: str) -> None:
            text, number = comment
            planted.append(number)
            paused = traffic.chat(client, REFUND)
            answer = traffic.post(client, "/chat/resume", decision_for(paused, decision, text))["answer"]["text"]
            assert decision == "approve" or "[REDACTED" in answer.partition("Note: ")[2], "a rejection shows its note"

        masked()

    _, sent = await converse(serve, settings, turns)

    assert leaks(planted, everywhere(settings, stores, traffic, sent)) == {}


async def test_ordinary_text_with_digits_is_answered_not_refused(
    serve: Callable[..., LiveServer], settings: Settings
) -> None:
    def turns(client: httpx.Client) -> None:
        @HTTP_EXAMPLES
        @given(text=ordinary_texts())
        @example(text="1 234 567 890 128 items")  # the screen glued these digits up into Luhn-valid runs
        @example(text="call 0049 1512 3456 100")
        @example(text="ping 192.168.100.109 10.0.0.109")
        def answered(text: str) -> None:
            response = Traffic().chat(client, f"{QUESTION} My details: {text}")
            assert (response["status"], response["answer"]["text"]) == ("completed", ANSWER_TEXT)

        answered()

    await converse(serve, settings, turns)


async def test_no_log_line_carries_a_number_written_any_of_these_ways(tmp_path: Path) -> None:
    traffic = Traffic()
    async with recording_provider() as provider:
        env = {
            "HARNESS_DATA_DIR": str(tmp_path / "data"),
            "HARNESS_LLM_PROVIDER": "openai",
            "HARNESS_LLM_BASE_URL": provider.base_url,
            "HARNESS_LLM_MODEL": "m",
            "HARNESS_LLM_API_KEY": "sk-test-recording-provider",
        }
        server = await HarnessProcess(env).start()
        try:

            def turns() -> list[int]:
                with httpx.Client(base_url=server.url, timeout=30) as client:
                    for number in FORMS.values():
                        assert traffic.chat(client, f"Use {number.text}")["status"] == "refused"
                    paused = traffic.chat(client, REFUND)
                    traffic.post(client, "/chat/resume", decision_for(paused, "reject", f"paid {ZERO_WIDTH_CARD.text}"))
                    paths = [f"/runs/{number.text}" for number in FORMS.values() if " " not in number.text]
                    looked_up = [client.get(path) for path in paths]
                    traffic.responses += [response.content for response in looked_up]
                    return [response.status_code for response in looked_up]

            statuses = await asyncio.to_thread(turns)
        finally:
            server.terminate()
            log = server.stderr()
            server.close()

    assert len(statuses) == 5
    assert set(statuses) <= {404, 422}
    assert "GET /runs/[REDACTED" in log, "the access log was captured, the paths masked"
    places = {"log": log.encode()} | {f"response {index}": body for index, body in enumerate(traffic.responses)}
    assert leaks([*FORMS.values(), ZERO_WIDTH_CARD], places) == {}
