"""The bundled support knowledge base: one Markdown file per document, ``# Title`` on its first line."""

from __future__ import annotations

from importlib import resources

import msgspec

__all__ = ("Document", "load_bundled_corpus", "parse_document")


class Document(msgspec.Struct, frozen=True, kw_only=True):
    doc_id: str
    title: str
    body: str
    """The paragraphs joined by a space, whitespace folded."""
    paragraphs: tuple[str, ...] = ()
    """The body's paragraphs in order, each a piece of ``body`` word for word; empty: the body is one."""

    def parts(self) -> tuple[str, ...]:
        """The paragraphs, or the whole body when the document was built without them."""
        return self.paragraphs or ((self.body,) if self.body else ())


def parse_document(doc_id: str, markdown: str) -> Document:
    first, _, rest = markdown.strip().partition("\n")
    if not first.startswith("# "):
        raise ValueError(f"document {doc_id!r} must start with a '# Title' line, got {first[:40]!r}")
    paragraphs = tuple(" ".join(part.split()) for part in rest.strip().split("\n\n") if part.strip())
    return Document(doc_id=doc_id, title=first[2:].strip(), body=" ".join(paragraphs), paragraphs=paragraphs)


def load_bundled_corpus() -> list[Document]:
    folder = resources.files("agent.knowledge").joinpath("corpus")
    entries = sorted((entry for entry in folder.iterdir() if entry.name.endswith(".md")), key=lambda e: e.name)
    return [parse_document(entry.name.removesuffix(".md"), entry.read_text(encoding="utf-8")) for entry in entries]
