"""Reading a ``GET /metrics`` answer with prometheus-client's own parser: samples by name and labels."""

from __future__ import annotations

from typing import TYPE_CHECKING

from prometheus_client.parser import text_string_to_metric_families

if TYPE_CHECKING:
    import httpx

__all__ = ("Scrape", "scrape")


class Scrape:
    def __init__(self, text: str) -> None:
        self.text = text
        self.samples = [sample for family in text_string_to_metric_families(text) for sample in family.samples]

    def value(self, name: str, **labels: str) -> float:
        """The sample ``name`` with exactly ``labels``; 0 when the service has none (a counter never moved)."""
        found = [sample.value for sample in self.samples if sample.name == name and sample.labels == labels]
        assert len(found) <= 1, f"{name}{labels} is ambiguous"
        return found[0] if found else 0.0

    def total(self, name: str, **labels: str) -> float:
        """The sum of the samples ``name`` whose labels include ``labels``."""
        return sum(
            sample.value
            for sample in self.samples
            if sample.name == name and all(sample.labels.get(key) == value for key, value in labels.items())
        )

    def names(self) -> set[str]:
        return {sample.name for sample in self.samples}

    def label_values(self) -> set[str]:
        return {value for sample in self.samples for value in sample.labels.values()}


async def scrape(client: httpx.AsyncClient, **headers: str) -> Scrape:
    response = await client.get("/metrics", headers=headers)
    assert response.status_code == 200, response.text
    assert response.headers["content-type"] == "text/plain; version=0.0.4; charset=utf-8"
    return Scrape(response.text)
