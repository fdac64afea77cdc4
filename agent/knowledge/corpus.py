"""The bundled support knowledge base: one Markdown file per document, ``# Title`` on its first line."""

from __future__ import annotations

from importlib import resources

import msgspec

__all__ = ("Document", "load_bundled_corpus", "parse_document")


class Document(msgspec.Struct, frozen=True, kw_only=True):
    doc_id: str
    title: str
    body: str


def parse_document(doc_id: str, markdown: str) -> Document:
    first, _, rest = markdown.strip().partition("\n")
    if not first.startswith("# "):
        raise ValueError(f"document {doc_id!r} must start with a '# Title' line, got {first[:40]!r}")
    body = " ".join(paragraph.strip() for paragraph in rest.strip().split("\n\n") if paragraph.strip())
    return Document(doc_id=doc_id, title=first[2:].strip(), body=" ".join(body.split()))


def load_bundled_corpus() -> list[Document]:
    folder = resources.files("agent.knowledge").joinpath("corpus")
    entries = sorted((entry for entry in folder.iterdir() if entry.name.endswith(".md")), key=lambda e: e.name)
    return [parse_document(entry.name.removesuffix(".md"), entry.read_text(encoding="utf-8")) for entry in entries]
