"""``EvidenceRewriter``: a deterministic, offline stand-in for the corrective LLM.

It is not a language model and does not pretend to be one. It reads the structured request
that ``corrective_messages`` embeds in the prompt and, for each flagged claim, answers with the
evidence sentence that shares most content words with the claim, quoted verbatim, or drops the
claim when no sentence shares enough. A quoted evidence sentence is grounded by construction,
and the guardrail still re-checks it like any rewrite. Use it where no LLM is reachable (demos,
air-gapped deployments) and accept its limits: it cannot rephrase, and a clause replaced by a
whole sentence may read awkwardly.
"""

from __future__ import annotations

import asyncio
import json
import re
from typing import Any

from ..errors import ConfigError, LLMResponseError
from ._regenerate import ANSWER_CLOSE, ANSWER_OPEN, REQUEST_CLOSE, REQUEST_OPEN
from ._text import overlap, sentences

__all__ = ["EvidenceRewriter"]

_MARKER = re.compile(r"\[[^\[\]]{1,40}\]")
_TRAILING_MARKER = re.compile(r"\s*\[[^\[\]]{1,40}\]\s*([.!?]?)\s*$")
_ANSWER = re.compile(re.escape(ANSWER_OPEN) + r"(.*?)" + re.escape(ANSWER_CLOSE), re.S)
_REQUEST = re.compile(re.escape(REQUEST_OPEN) + r"\s*(.*?)\s*" + re.escape(REQUEST_CLOSE), re.S)


class EvidenceRewriter:
    """ChatModel-compatible corrector that quotes the best evidence sentence per flagged claim.

    ``min_overlap``: share of the claim's content words a sentence must contain to replace it;
    below it the claim is dropped ("").
    """

    name = "evidence-rewriter"

    def __init__(self, min_overlap: float = 0.4):
        if not 0.0 < min_overlap <= 1.0:
            raise ConfigError(f"min_overlap must be within (0, 1], got {min_overlap}")
        self.min_overlap = min_overlap

    def __repr__(self) -> str:
        return f"EvidenceRewriter(min_overlap={self.min_overlap})"

    def _request(self, messages: list[dict[str, Any]]) -> tuple[dict[str, Any], str]:
        """The structured request and the original answer from the last corrective message."""
        for msg in reversed(messages):
            content = msg.get("content") if isinstance(msg, dict) else getattr(msg, "content", None)
            if not isinstance(content, str):
                continue
            m = _REQUEST.search(content)
            if m:
                try:
                    req = json.loads(m.group(1))
                except json.JSONDecodeError as exc:
                    raise LLMResponseError(f"EvidenceRewriter: the request block is not JSON: {exc}") from exc
                a = _ANSWER.search(content)
                return req, a.group(1) if a else ""
        raise LLMResponseError(
            f"EvidenceRewriter only answers corrective requests ({REQUEST_OPEN}...{REQUEST_CLOSE}); none found in the messages"
        )

    def rewrite(self, claim: str, evidence: list[str], answer: str, evidence_ids: list[str] | None = None) -> str:
        """The best evidence sentence for ``claim``, or "" to drop it.

        When the claim carries a citation marker, the replacement cites the evidence it quotes
        (``evidence_ids[i]`` for ``evidence[i]``), where the claim had its marker.
        """
        bare = _MARKER.sub("", claim)
        best, best_score, best_doc = "", 0.0, 0
        for i, text in enumerate(evidence):
            for s, e in sentences(text):
                sent = text[s:e].strip()
                score = overlap(bare, sent)
                if score > best_score or (score == best_score and best and len(sent) < len(best)):
                    best, best_score, best_doc = sent, score, i
        if best_score < self.min_overlap or not best:
            return ""
        if best in answer:
            return ""  # the answer already says it elsewhere: repeating it would not add anything
        tail = _TRAILING_MARKER.search(claim)
        if tail and evidence_ids and best_doc < len(evidence_ids):
            marker = f"[{evidence_ids[best_doc]}]"
            stop = best[-1] if best[-1] in ".!?" else ""
            body = best[:-1] if stop else best
            # Keep the claim's habit: "... [1]." (marker before the stop) or "... . [1]".
            best = f"{body} {marker}{stop}" if tail.group(1) else f"{best} {marker}"
        return best

    def chat(self, messages: list[dict[str, Any]], **kw: Any) -> str:
        req, answer = self._request(messages)
        out = {}
        for claim in req.get("claims", []):
            docs = [e for e in claim.get("evidence", []) if isinstance(e, dict)]
            out[claim["id"]] = self.rewrite(
                claim.get("text", ""), [str(e.get("text", "")) for e in docs], answer, [str(e.get("id", "")) for e in docs]
            )
        return json.dumps(out, ensure_ascii=False)

    async def achat(self, messages: list[dict[str, Any]], **kw: Any) -> str:
        return await asyncio.to_thread(self.chat, messages, **kw)
