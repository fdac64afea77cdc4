"""The shared chunk reader on its own: the edges where OpenAI-compatible servers differ."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from agent.llm import ProviderStreamFailed
from agent.llm.openai_chunks import parse_chunk, read_chunks
from agent.llm.sse import sse_data

if TYPE_CHECKING:
    from collections.abc import AsyncIterator

    from agent.llm.types import Chunk


async def lines_of(text: str) -> AsyncIterator[str]:
    for line in text.split("\n"):
        yield line


async def read(text: str) -> list[Chunk]:
    data = sse_data(lines_of(text))
    return [chunk async for chunk in read_chunks(data, model="m", provider="p", estimated_input_tokens=99)]


async def test_sse_data_skips_comments_and_other_fields_and_joins_multiline_data() -> None:
    text = ": ping\nevent: message\nid: 1\ndata: a\ndata:b\n\nretry: 10\n\ndata: last"
    assert [data async for data in sse_data(lines_of(text))] == ["a\nb", "last"]


async def test_usage_on_every_chunk_keeps_the_latest() -> None:
    text = (
        'data: {"choices": [{"index": 0, "delta": {"content": "A"}}],'
        ' "usage": {"prompt_tokens": 3, "completion_tokens": 1}}\n\n'
        'data: {"choices": [{"index": 0, "delta": {"content": "B"}, "finish_reason": "stop"}],'
        ' "usage": {"prompt_tokens": 3, "completion_tokens": 2}}\n\n'
        "data: [DONE]\n\n"
    )
    chunks = await read(text)
    assert [c.delta for c in chunks] == ["A", "B", ""]
    assert (chunks[-1].input_tokens, chunks[-1].output_tokens, chunks[-1].usage_estimated) == (3, 2, False)


async def test_other_choices_and_empty_or_null_content_are_ignored() -> None:
    text = (
        'data: {"choices": [{"index": 1, "delta": {"content": "other"}},'
        ' {"index": 0, "delta": {"content": "mine"}}]}\n\n'
        'data: {"choices": [{"index": 0, "delta": {"content": null, "reasoning_content": "hmm"}}]}\n\n'
        'data: {"choices": [{"index": 0, "delta": {"content": ""}, "finish_reason": "stop"}]}\n\n'
        "data: [DONE]\n\n"
    )
    chunks = await read(text)
    assert [c.delta for c in chunks] == ["mine", ""]
    assert (chunks[-1].input_tokens, chunks[-1].usage_estimated) == (99, True)


async def test_done_without_a_finish_reason_counts_as_stop() -> None:
    chunks = await read('data: {"choices": [{"index": 0, "delta": {"content": "x"}}]}\n\ndata: [DONE]\n\n')
    assert chunks[-1].finish_reason == "stop"


def test_malformed_data_names_the_provider_but_not_the_payload() -> None:
    with pytest.raises(ProviderStreamFailed, match=r"^acme sent a malformed stream chunk") as failure:
        parse_chunk('{"choices": [{"delta": {"content": "secret prompt text"', "acme")
    assert "secret prompt text" not in str(failure.value)
