"""``GuardrailNodePostprocessor``: citation ids on retrieved nodes, and an optional relevance bound.

A node post-processor runs before the answer exists, so it does not check anything: it prepares
the nodes so that the answer can be checked afterwards (``GuardedQueryEngine``). The id it writes
into each node's metadata is shown to the LLM with the node text (LlamaIndex puts metadata in the
LLM view of a node) and read back from ``response.source_nodes`` by the checker, so a citation
marker such as ``[2]`` resolves to the same passage on both sides.
"""

from __future__ import annotations

import hashlib

from llama_index.core.postprocessor.types import BaseNodePostprocessor
from llama_index.core.schema import NodeWithScore, QueryBundle
from pydantic import Field, field_validator

__all__ = ["GuardrailNodePostprocessor", "content_hash"]


def content_hash(text: str) -> str:
    """Short content hash: the same passage gets the same id in every query."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:10]


class GuardrailNodePostprocessor(BaseNodePostprocessor):
    """Gives each node a stable evidence id and drops nodes scored below ``min_score``.

    Nodes are copied, never modified in place: a retriever may hand out the same node objects to
    concurrent queries, and an id written into one query's node must not leak into another's.
    """

    id_key: str = Field(default="evidence_id", description="Node metadata key the evidence id is written to.")
    id_template: str = Field(
        default="{n}",
        description=(
            "How ids are built: {n} the 1-based position after filtering, {node_id} the node id, {hash} a short "
            "hash of the node text (same passage, same id in every query)."
        ),
    )
    min_score: float | None = Field(
        default=None,
        description="Drop nodes whose retrieval score is below this bound. Nodes without a score are kept (relevance unknown). None: keep all.",
    )

    @field_validator("id_template")
    @classmethod
    def _template(cls, v: str) -> str:
        try:
            v.format(n=1, node_id="x", hash="x")
        except (KeyError, IndexError, ValueError) as exc:
            raise ValueError(f"id_template {v!r}: unknown or malformed placeholder {exc}; allowed: {{n}}, {{node_id}}, {{hash}}") from None
        return v

    @classmethod
    def class_name(cls) -> str:
        return "GuardrailNodePostprocessor"

    def _postprocess_nodes(self, nodes: list[NodeWithScore], query_bundle: QueryBundle | None = None) -> list[NodeWithScore]:
        kept = [n for n in nodes if self.min_score is None or n.score is None or n.score >= self.min_score]
        out, used = [], set()
        for i, nws in enumerate(kept, 1):
            node = nws.node
            eid = self.id_template.format(n=i, node_id=node.node_id, hash=content_hash(node.get_content()))
            if eid in used:
                raise ValueError(f"id_template {self.id_template!r} gives the id {eid!r} to two nodes; include {{n}} or {{node_id}}")
            used.add(eid)
            copy = node.model_copy(deep=False)
            copy.metadata = {**node.metadata, self.id_key: eid}
            # The id is for the LLM and the checker, not for similarity search.
            copy.excluded_embed_metadata_keys = list(dict.fromkeys([*node.excluded_embed_metadata_keys, self.id_key]))
            out.append(NodeWithScore(node=copy, score=nws.score))
        return out

    async def _apostprocess_nodes(self, nodes: list[NodeWithScore], query_bundle: QueryBundle | None = None) -> list[NodeWithScore]:
        return self._postprocess_nodes(nodes, query_bundle)  # no I/O, microseconds: no thread hop needed
