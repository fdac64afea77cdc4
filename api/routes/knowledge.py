"""``GET /kb/{doc_id}``: the knowledge-base document a citation points at."""

from __future__ import annotations

from litestar import get
from litestar.di import NamedDependency
from litestar.params import FromPath

from agent.knowledge import KnowledgeIndex
from api.exceptions import DocumentNotFound
from api.openapi import problem_responses
from contracts import KnowledgeDocument

__all__ = ("get_document",)


@get(
    "/kb/{doc_id:str}",
    operation_id="getDocument",
    tags=["knowledge"],
    summary="A knowledge-base document, as cited by answers",
    responses=problem_responses(401, 404),
)
async def get_document(doc_id: FromPath[str], knowledge: NamedDependency[KnowledgeIndex]) -> KnowledgeDocument:
    document = knowledge.get(doc_id)
    if document is None:
        raise DocumentNotFound(f"There is no document {doc_id} in the knowledge base.")
    return KnowledgeDocument(doc_id=document.doc_id, title=document.title, body=document.body)
