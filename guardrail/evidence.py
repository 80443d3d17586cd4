"""Context in, evidence windows per claim out.

Three steps, each a pure function or a stateless object so one instance serves concurrent calls:

1. :func:`normalize_context` turns whatever a RAG stack hands over (strings, bytes, dicts, LangChain
   documents, LlamaIndex nodes, our own :class:`Evidence`) into a list of ``Evidence`` with ids that
   citations resolve to. Structured data (JSON, or the Python-literal dicts of RAGTruth Data2txt) is
   flattened into one ``path: value`` line per fact, because a verifier judges sentences, and a claim
   such as "it has free Wi-Fi" is checked against ``attributes.WiFi: free``, not against braces.
2. :func:`make_windows` cuts one evidence text into sentence-aligned windows of bounded size, with exact
   offsets, covering the whole text: nothing is dropped, an over-long sentence is split at word
   boundaries, and a window never ends inside a word.
3. :class:`EvidenceSelector` ranks the windows of all evidence for each claim (BM25, embedding cosine,
   or both fused) and keeps the best ``top_k``, in context order, with their scores. What it needs of a
   context (windows, BM25 index, the figures and sentences of each window) is a :class:`ContextIndex`,
   built once per context and kept in a small LRU (:class:`IndexCache`) keyed by a hash of the evidence
   texts, so the claims of an answer, its citations, and the next answer against the same documents
   (RAG apps re-ask over the same retrieved passages; RAGTruth has six answers per context) reuse it.
"""

from __future__ import annotations

import ast
import hashlib
import json
import math
import re
import threading
from collections import Counter, OrderedDict
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from .citations import strip_markers
from .errors import InputError
from .limits import LIMITS, check_value_depth, json_text_depth
from .text.terms import content_terms
from .types import Claim, Evidence, VerificationItem, Window

if TYPE_CHECKING:  # pragma: no cover
    from .embeddings import Embedder

__all__ = ["normalize_context", "make_windows", "estimate_tokens", "EvidenceSelector", "ContextIndex", "IndexCache",
           "INDEX_CACHE", "context_key"]

# ---------------------------------------------------------------------------------------------
# normalize_context
# ---------------------------------------------------------------------------------------------

_TEXT_KEYS = ("text", "page_content", "content")
_SOURCE_KEYS = ("source", "url", "file_path", "file_name", "title")


def normalize_context(context: Any) -> list[Evidence]:
    """Evidence list from any supported context shape; ``None`` or empty gives ``[]``.

    Accepted: ``str``; ``bytes`` (strict UTF-8); :class:`Evidence`; a dict with ``text`` /
    ``page_content`` / ``content`` (and optional ``id``, ``metadata``, ``source``; other keys go to
    metadata) or, without such a key, a structured record that is flattened; LangChain-document-like
    objects (``page_content``, ``metadata``, ``id``); LlamaIndex-node-like objects (``get_content()``,
    ``node_id``/``id_``, ``metadata``; ``NodeWithScore`` via ``.node``, its score kept as
    ``metadata["retrieval_score"]``); or a list / tuple / iterable of any of these.

    Items without an id of their own get their 1-based position ("1", "2", …) so that a citation
    ``[1]`` resolves to the first passage. Two items with the same id and the same text are one
    passage retrieved twice and are kept once; the same id with different texts raises
    :class:`InputError`, since a citation to it would be ambiguous. ``Evidence`` objects are taken
    as they are (their text is never flattened: the caller chose it).
    """
    if context is None:
        return []
    if isinstance(context, (str, bytes, bytearray, memoryview, Evidence, Mapping)) or _is_document_like(context):
        items: list[Any] = [context]
    elif isinstance(context, Iterable):
        items = list(context)
    else:
        raise InputError(f"context: unsupported type {type(context).__name__}; {_EXPECTED}")

    single = len(items) == 1 and _is_single(context)
    out: list[Evidence] = []
    by_id: dict[str, Evidence] = {}
    for i, item in enumerate(items):
        ev = _one(item, default_id=str(i + 1), where="context" if single else f"context[{i}]")
        seen = by_id.get(ev.id)
        if seen is not None:
            if seen.text == ev.text:
                continue
            raise InputError(f"context[{i}]: evidence id '{ev.id}' is used by two different passages; ids must be unique")
        by_id[ev.id] = ev
        out.append(ev)
    if single and out and not out[0].text.strip():
        return []
    return out


_EXPECTED = "expected str, bytes, Evidence, dict, a LangChain Document, a LlamaIndex node, or a list of these"


def _is_single(context: Any) -> bool:
    return isinstance(context, (str, bytes, bytearray, memoryview, Evidence, Mapping)) or _is_document_like(context)


def _is_document_like(obj: Any) -> bool:
    return isinstance(getattr(obj, "page_content", None), str) or callable(getattr(obj, "get_content", None)) or (
        hasattr(obj, "node") and callable(getattr(getattr(obj, "node", None), "get_content", None))
    )


def _decode(data: bytes | bytearray | memoryview, where: str) -> str:
    raw = bytes(data)
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(
            f"{where}: bytes are not valid UTF-8 at byte offset {exc.start} ({raw[exc.start:exc.start + 4]!r}); "
            "decode them yourself or pass str"
        ) from exc


def _one(item: Any, default_id: str, where: str) -> Evidence:
    if isinstance(item, Evidence):
        return item.model_copy(deep=True)
    if isinstance(item, (bytes, bytearray, memoryview)):
        item = _decode(item, where)
    if isinstance(item, str):
        return _from_text(item, id=default_id, source=None, metadata={})
    if isinstance(item, Mapping):
        return _from_mapping(item, default_id, where)
    if isinstance(getattr(item, "page_content", None), str):  # LangChain Document
        meta = dict(getattr(item, "metadata", None) or {})
        doc_id = getattr(item, "id", None)
        return _from_text(item.page_content, id=_id_or(doc_id, default_id), source=_source_of(meta), metadata=meta)
    node, score = item, None
    inner = getattr(item, "node", None)
    if inner is not None and callable(getattr(inner, "get_content", None)):  # NodeWithScore
        node, score = inner, getattr(item, "score", None)
    if callable(getattr(node, "get_content", None)):  # LlamaIndex node
        text = node.get_content()
        if not isinstance(text, str):
            raise InputError(f"{where}: get_content() returned {type(text).__name__}, not str")
        meta = dict(getattr(node, "metadata", None) or {})
        if score is not None:
            meta["retrieval_score"] = float(score)
        node_id = getattr(node, "node_id", None) or getattr(node, "id_", None)
        return _from_text(text, id=_id_or(node_id, default_id), source=_source_of(meta), metadata=meta)
    raise InputError(f"{where}: unsupported type {type(item).__name__}; {_EXPECTED}")


def _id_or(value: Any, default: str) -> str:
    return str(value) if value is not None and str(value).strip() else default


def _source_of(meta: Mapping[str, Any]) -> str | None:
    for key in _SOURCE_KEYS:
        val = meta.get(key)
        if isinstance(val, str) and val:
            return val
    return None


def _from_mapping(item: Mapping[str, Any], default_id: str, where: str) -> Evidence:
    key = next((k for k in _TEXT_KEYS if k in item), None)
    if key is None:  # no text field: the mapping is the data itself (a record, a JSON object)
        check_value_depth(item, where)  # flattening recurses per level
        return _structured(dict(item), id=default_id, source=None, metadata={}, fmt="mapping")
    text = item[key]
    if isinstance(text, (bytes, bytearray, memoryview)):
        text = _decode(text, f"{where}.{key}")
    if not isinstance(text, str):
        raise InputError(f"{where}.{key}: expected a string, got {type(text).__name__}")
    meta = item.get("metadata") or {}
    if not isinstance(meta, Mapping):
        raise InputError(f"{where}.metadata: expected a mapping, got {type(meta).__name__}")
    meta = dict(meta)
    for k, v in item.items():  # keep whatever else came with the passage (title, score, ...)
        if k not in (key, "id", "metadata", "source"):
            meta.setdefault(k, v)
    source = item.get("source")
    if source is not None and not isinstance(source, str):
        source = str(source)
    return _from_text(text, id=_id_or(item.get("id"), default_id), source=source or _source_of(meta), metadata=meta)


def _from_text(text: str, *, id: str, source: str | None, metadata: dict[str, Any]) -> Evidence:
    parsed = _parse_structured(text)
    if parsed is not None:
        obj, fmt = parsed
        return _structured(obj, id=id, source=source, metadata=metadata, fmt=fmt)
    block = _structured_block(text)
    if block is not None:
        obj, fmt, before, after = block
        return _structured(obj, id=id, source=source, metadata=metadata, fmt=fmt, before=before, after=after)
    return Evidence(id=id, text=text, source=source, metadata=metadata)


def _structured(
    obj: Any, *, id: str, source: str | None, metadata: dict[str, Any], fmt: str, before: str = "", after: str = ""
) -> Evidence:
    lines: list[str] = [before] if before else []
    _flatten(obj, "", lines)
    if after:
        lines.append(after)
    meta = dict(metadata)
    meta["flattened"] = True
    meta["structured_format"] = fmt
    return Evidence(id=id, text="\n".join(lines), source=source, metadata=meta)


_BLOCK_START = re.compile(r"^[ \t]*[{\[]", re.M)
_BLOCK_END = re.compile(r"[}\]][ \t]*$", re.M)


def _structured_block(text: str) -> tuple[Any, str, str, str] | None:
    """A JSON / Python-literal block that makes up most of ``text``, with the text around it.

    RAGTruth Data2txt contexts are a Python dict followed by a prompt tail ("\\nOverview:"); a whole-text
    parse misses them. The block must start and end on its own lines and hold at least half of the
    text, so a small JSON snippet inside prose stays prose. The text around it is kept as lines.
    """
    start = _BLOCK_START.search(text)
    if start is None:
        return None
    ends = list(_BLOCK_END.finditer(text, start.start()))
    if not ends:
        return None
    end = ends[-1].end()
    if 2 * len(text[start.start() : end].strip()) < len(text.strip()):
        return None
    parsed = _parse_structured(text[start.start() : end])
    if parsed is None:
        return None
    before, after = text[: start.start()].strip(), text[end:].strip()
    return parsed[0], parsed[1], _WS_BREAK.sub(" ", before), _WS_BREAK.sub(" ", after)


def _parse_structured(text: str) -> tuple[Any, str] | None:
    """(object, "json" | "python") when the whole text is a JSON or Python-literal dict / list."""
    s = text.strip()
    if len(s) < 2 or s[0] not in "{[" or s[-1] not in "}]":
        return None
    if json_text_depth(s, stop_above=LIMITS.max_json_depth)[0] > LIMITS.max_json_depth:
        return None  # too deep for the parsers (they recurse): the passage stays text
    try:
        obj, fmt = json.loads(s), "json"
    except ValueError:
        try:
            # literal_eval evaluates literals only (no names, calls or attribute access): safe on untrusted text.
            obj, fmt = ast.literal_eval(s), "python"
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            return None
    if isinstance(obj, (dict, list)) and obj:
        return obj, fmt
    return None


_WS_BREAK = re.compile(r"\s*\n\s*")


_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")


def _key(key: Any) -> str:
    """Keys as words: "RestaurantsTakeOut" -> "Restaurants Take Out", "business_stars" -> "business stars".

    A claim says "offers take-out", not "RestaurantsTakeOut"; split keys let both the lexical and the
    embedding side match it (measured on RAGTruth Data2txt: see the "evidence" helper report).
    """
    text = _CAMEL.sub(" ", str(key)).replace("_", " ")
    return re.sub(r"\s+", " ", text).strip() or str(key)


def _scalar(value: Any) -> str:
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, float) and value.is_integer():
        return str(value)  # keep "4.0" as the data says it; numbers are compared numerically later
    # One fact per line: newlines inside a value (reviews) become spaces.
    return _WS_BREAK.sub(" ", str(value)).strip()


def _flatten(obj: Any, path: str, out: list[str]) -> None:
    if isinstance(obj, str):
        nested = _parse_structured(obj) if obj[:1] in "{[" else None
        if nested is not None and isinstance(nested[0], dict):  # stringified dicts (Yelp attributes)
            _flatten(nested[0], path, out)
            return
    if isinstance(obj, Mapping):
        if not obj:
            out.append(f"{path}: {{}}" if path else "{}")
        for k, v in obj.items():
            _flatten(v, f"{path}.{_key(k)}" if path else _key(k), out)
        return
    if isinstance(obj, (list, tuple)):
        if not obj:
            out.append(f"{path}: []" if path else "[]")
        elif all(not isinstance(v, (Mapping, list, tuple)) for v in obj):
            out.append(f"{path}: {', '.join(_scalar(v) for v in obj)}" if path else ", ".join(_scalar(v) for v in obj))
        else:
            for i, v in enumerate(obj):
                _flatten(v, f"{path}[{i}]", out)
        return
    out.append(f"{path}: {_scalar(obj)}" if path else _scalar(obj))


# ---------------------------------------------------------------------------------------------
# make_windows
# ---------------------------------------------------------------------------------------------

# BERT's pre-tokeniser splits on whitespace and around every punctuation character; WordPiece then
# splits rare words further. Counting pre-tokens and scaling by TOKENS_PER_PRETOKEN estimates the
# MiniLM token count: on 15,324 RAGTruth sentences (600 rows, seed 0) the true/pre-token ratio is
# 1.077 overall, per sentence within -13% / +8% (5th / 95th percentile) at that ratio. 1.1 leans
# to over-estimating so windows rarely exceed their budget, at a fraction of the tokenizer's cost.
_PRETOKEN = re.compile(r"\w+|[^\w\s]")
TOKENS_PER_PRETOKEN = 1.1


def estimate_tokens(text: str) -> int:
    """Approximate MiniLM / BERT-uncased token count of ``text`` (without [CLS]/[SEP])."""
    return math.ceil(len(_PRETOKEN.findall(text)) * TOKENS_PER_PRETOKEN)


def _sentence_spans(text: str) -> list[tuple[int, int]]:
    from .claims import split_sentences  # claims reads evidence's windows: imported on use

    return split_sentences(text)


_KV_LINE = re.compile(r"^[\w.\[\]\- ]{1,80}: ")


def kv_share(text: str) -> float:
    """Share of a text's non-blank lines that read "key: value": flattened data when most do."""
    lines = [line for line in text.split("\n") if line.strip()]
    return sum(bool(_KV_LINE.match(line)) for line in lines) / len(lines) if lines else 0.0


def sentences_of(window: Window) -> list[tuple[int, int]]:
    """(start, end) offsets into the evidence text of each sentence of a window (each line of flattened
    data). The selector's dense relevance and the heuristic's evidence sentences are both these
    sentences, so a sentence embedded to rank windows is a cache hit when the claim is checked."""
    text = window.text
    # (one line of prose that opens "Passenger notice: ..." is no flattened record: records have lines)
    flattened = "\n" in text.strip() and kv_share(text) >= 0.6
    spans = line_spans(text) if flattened else _sentence_spans(text)
    return [(window.start + s, window.start + e) for s, e in spans if e > s] or [(window.start, window.end)]


def line_spans(text: str) -> list[tuple[int, int]]:
    """Flattened data: every line is one fact; long lines (review texts) are split into sentences."""
    spans: list[tuple[int, int]] = []
    pos = 0
    for line in text.split("\n"):
        a, b = pos, pos + len(line)
        pos = b + 1
        if not line.strip():
            continue
        sub = _sentence_spans(line) if len(line) > 400 else [(0, len(line))]
        spans.extend((a + s, a + e) for s, e in sub)
    return spans


def _close_gaps(text: str, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Attach any non-whitespace text a splitter left between spans (bullets, stray markup) to the
    next span, so that the windows built from the spans cover every character that is not space."""
    out: list[tuple[int, int]] = []
    prev = 0
    for s, e in sorted(spans):
        if s < prev:  # overlapping spans from a splitter: clip
            s = prev
        if e <= s:
            continue
        gap = text[prev:s]
        if gap.strip():
            s = prev + (len(gap) - len(gap.lstrip()))
        out.append((s, e))
        prev = e
    tail = text[prev:]
    if tail.strip():
        out.append((prev + len(tail) - len(tail.lstrip()), len(text.rstrip())))
    return out


def _split_long(text: str, s: int, e: int, max_tokens: int) -> list[tuple[int, int, float]]:
    """Cut one over-long sentence at word boundaries; a single word longer than the budget (a URL,
    base64) is cut at character boundaries, the only place a window may end inside a token."""
    out: list[tuple[int, int, float]] = []
    cur_s, cur_e, cur_t = -1, -1, 0.0
    max_chars = max_tokens * 3
    for m in re.finditer(r"\S+", text[s:e]):
        ws, we = m.start() + s, m.end() + s
        t = len(_PRETOKEN.findall(m.group())) * TOKENS_PER_PRETOKEN
        if t > max_tokens:
            if cur_s >= 0:
                out.append((cur_s, cur_e, cur_t))
                cur_s = -1
            for cs in range(ws, we, max_chars):
                ce = min(we, cs + max_chars)
                out.append((cs, ce, len(_PRETOKEN.findall(text[cs:ce])) * TOKENS_PER_PRETOKEN))
            continue
        if cur_s >= 0 and cur_t + t > max_tokens:
            out.append((cur_s, cur_e, cur_t))
            cur_s = -1
        if cur_s < 0:
            cur_s, cur_t = ws, 0.0
        cur_e = we
        cur_t += t
    if cur_s >= 0:
        out.append((cur_s, cur_e, cur_t))
    return out


def make_windows(ev: Evidence, max_tokens: int = 200, overlap_sentences: int = 1) -> list[Window]:
    """Sentence-aligned windows of at most ~``max_tokens`` MiniLM tokens over the whole of ``ev.text``.

    ``ev.text[w.start:w.end] == w.text`` for every window; consecutive windows share
    ``overlap_sentences`` sentences so a fact that spans a boundary is whole in one of them; every
    non-whitespace character of the text is in some window. Sizes use :func:`estimate_tokens`.
    """
    if max_tokens < 8:
        raise InputError(f"max_tokens must be at least 8, got {max_tokens}")
    if overlap_sentences < 0:
        raise InputError(f"overlap_sentences must be >= 0, got {overlap_sentences}")
    text = ev.text
    if not text.strip():
        return []
    spans = line_spans(text) if ev.metadata.get("flattened") else _sentence_spans(text)
    units: list[tuple[int, int, float]] = []
    for s, e in _close_gaps(text, spans):
        t = len(_PRETOKEN.findall(text, s, e)) * TOKENS_PER_PRETOKEN
        if t > max_tokens:
            units.extend(_split_long(text, s, e, max_tokens))
        else:
            units.append((s, e, t))

    windows: list[Window] = []
    i, n = 0, len(units)
    while i < n:
        j, total = i, 0.0
        while j < n and (j == i or total + units[j][2] <= max_tokens):
            total += units[j][2]
            j += 1
        s, e = units[i][0], units[j - 1][1]
        windows.append(Window(evidence_id=ev.id, start=s, end=e, text=text[s:e]))
        if j >= n:
            break
        i = max(j - overlap_sentences, i + 1)
    return windows


# ---------------------------------------------------------------------------------------------
# Terms (shared with the heuristic verifier)
# ---------------------------------------------------------------------------------------------

# STOPWORDS, stem and content_terms live in the text layer (guardrail.text.terms); re-exported here.



# ---------------------------------------------------------------------------------------------
# EvidenceSelector
# ---------------------------------------------------------------------------------------------


class BM25:
    """Okapi BM25 over a small corpus (a few to a few thousand windows).

    Why not a library index: for the sizes a RAG context has, building a term-id / document-frequency
    table with Counters and scoring queries as sparse dot products is faster than the index build of
    ``bm25s`` (measured: see the report in ``EvidenceSelector``'s docstring). The postings are flat
    arrays sorted by term, each carrying its final weight (idf x saturated tf, length-normalised),
    computed in one vectorised pass at build: the index is built once per context
    (:class:`ContextIndex`) and queried once per claim, so a query term is one slice and one sparse add.
    """

    def __init__(self, docs: list[list[str]], k1: float = 1.5, b: float = 0.75):
        self.k1, self.b = k1, b
        self.n = len(docs)
        self.vocab: dict[str, int] = {}
        term_of: list[int] = []
        doc_of: list[int] = []
        tfs: list[int] = []
        for i, d in enumerate(docs):
            for term, count in Counter(d).items():
                term_of.append(self.vocab.setdefault(term, len(self.vocab)))
                doc_of.append(i)
                tfs.append(count)
        terms = np.array(term_of, dtype=np.int64)
        order = np.argsort(terms, kind="stable")
        df = np.bincount(terms, minlength=len(self.vocab)).astype(np.float64)
        #: postings of term j are docs[starts[j]:starts[j + 1]] with weights[...] in the same places.
        self.starts = np.concatenate(([0], np.cumsum(df, dtype=np.int64)))
        self.docs = np.array(doc_of, dtype=np.int64)[order]
        lengths = np.array([len(d) for d in docs], dtype=np.float64)
        norm = k1 * (1 - b + b * lengths / max(lengths.mean(), 1.0)) if self.n else lengths
        tf = np.array(tfs, dtype=np.float64)[order]
        idf = np.log(1 + (self.n - df + 0.5) / (df + 0.5))
        self.weights = idf[terms[order]] * tf * (k1 + 1) / (tf + norm[self.docs])

    def scores(self, query: list[str]) -> np.ndarray:
        out = np.zeros(self.n, dtype=np.float64)
        for term in set(query):
            j = self.vocab.get(term)
            if j is not None:
                a, b = self.starts[j], self.starts[j + 1]
                out[self.docs[a:b]] += self.weights[a:b]
        return out


def tfidf_cosine(query: str, texts: Sequence[str]) -> np.ndarray:
    """Cosine of ``query`` against each of ``texts`` as tf-idf vectors of their content terms, idf over
    ``texts``: how much each text says the query's words, rare words counting most.

    Why: the meaning-match a verifier can have without an embedding model. On 2 cores the int8 MiniLM
    costs ~170 ms to embed a new 2k-token context, two thirds of a check; this costs well under 1 ms.
    """
    docs = [_term_counts(t) for t in texts]
    q = Counter(content_terms(query))
    if not docs:
        return np.zeros(0)
    df = Counter(t for d in docs for t in d)
    n = len(docs)

    def vec(d: Counter) -> dict[str, float]:
        return {t: tf * math.log(1.0 + (n + 1) / (df.get(t, 0) + 1)) for t, tf in d.items()}

    qv = vec(q)
    qn = math.sqrt(sum(v * v for v in qv.values()))
    out = np.zeros(n)
    if qn == 0:
        return out
    for i, d in enumerate(docs):
        dv = vec(d)
        dn = math.sqrt(sum(v * v for v in dv.values()))
        if dn:
            out[i] = sum(w * dv.get(t, 0.0) for t, w in qv.items()) / (qn * dn)
    return out


@lru_cache(maxsize=4096)
def _term_counts(text: str) -> Counter[str]:
    """Content-term counts of an evidence sentence, cached (read-only to callers): the claims of an
    answer are checked against largely the same windows, so each sentence is parsed once, not per claim."""
    return Counter(content_terms(text))


def _values(text: str) -> frozenset[str]:
    """The figures a text states, as terms ("52,000" -> "52000", "3.5"): what a claim's number must be found as."""
    return frozenset(t for t in content_terms(text) if t[:1].isdigit())


def _anchor_values(best: list[int], values: frozenset[str], row: np.ndarray, window_values: list[frozenset[str]]) -> list[int]:
    """``best`` with, for each of the claim's figures no chosen window states, the best-scored window that does
    state it in place of the weakest chosen window that states none of the claim's figures.

    Why: relevance ranks windows by words and meaning, so in a long record ("business stars: 3.5" among
    pages of reviews, each with its own "stars: 5.0") the line that states the claim's figure can rank
    below windows that talk about the same things. The checks downstream then compare the figure with
    whatever other figure the chosen windows hold, and a faithful "rated 3.5 stars" reads as a mismatch;
    and a figure borrowed from another sentence ("52,000" is the capacity, not the attendance) needs both
    sentences in view to be caught. The best window always stays.
    """
    best = list(best)
    for value in sorted(values):
        if any(value in window_values[i] for i in best):
            continue
        holders = [i for i, v in enumerate(window_values) if value in v]
        if not holders:
            continue
        spare = [i for i in best[1:] if not (window_values[i] & values)]
        if not spare:
            break
        weakest = min(spare, key=lambda i: row[i])
        best[best.index(weakest)] = max(holders, key=lambda i: row[i])
    return best


def strip_citation_markers(text: str) -> str:
    """``text`` without citation markers (:func:`guardrail.citations.strip_markers`): a claim's "[2]" is
    bookkeeping, not words to retrieve by."""
    return strip_markers(text)


def _minmax(x: np.ndarray) -> np.ndarray:
    """Per row to 0..1; a row with one value everywhere (no lexical match at all) becomes all zeros."""
    lo = x.min(axis=1, keepdims=True)
    return (x - lo) / np.maximum(x.max(axis=1, keepdims=True) - lo, 1e-12)


class ContextIndex:
    """What selection needs of one context, built once and read by every call against that context.

    ``windows`` are cut at construction; the BM25 index, the figures each window states (``_values``)
    and each window's sentences (for the embedding side) are built on first use, because a BM25
    selector never embeds and an answer without figures never needs them. The BM25 index and the
    figures are built under a lock, so concurrent first uses build them once; a window's sentences are
    cheap and stored first-come. Nothing is changed after it is built, and windows handed out by the
    selector are copies, so one index serves any number of threads.
    """

    def __init__(self, windows: list[Window]) -> None:
        self.windows = windows
        self._lock = threading.Lock()
        self._bm25: BM25 | None = None
        self._values: list[frozenset[str]] | None = None
        self._sentences: dict[int, list[str]] = {}

    @property
    def bm25(self) -> BM25:
        if self._bm25 is None:
            with self._lock:
                if self._bm25 is None:
                    self._bm25 = BM25([content_terms(w.text) for w in self.windows])
        return self._bm25

    @property
    def window_values(self) -> list[frozenset[str]]:
        """The figures each window states (see ``_values``)."""
        if self._values is None:
            with self._lock:
                if self._values is None:
                    self._values = [_values(w.text) for w in self.windows]
        return self._values

    def sentences(self, i: int) -> list[str]:
        """The texts of window ``i``'s sentences (:func:`sentences_of`), the units the embedding side scores."""
        found = self._sentences.get(i)
        if found is None:
            w = self.windows[i]
            found = [w.text[s - w.start : e - w.start] for s, e in sentences_of(w)]
            with self._lock:
                found = self._sentences.setdefault(i, found)
        return found


def context_key(evidence: Sequence[Evidence], max_window_tokens: int, overlap_sentences: int) -> bytes:
    """Content hash of what a :class:`ContextIndex` is built from: each passage's id (windows carry it),
    whether it is flattened data (cut at lines, not sentences) and its text, plus the window settings.

    Two calls with the same documents get the same key whatever objects carry them; any change to a
    text, an id or a setting gives another. Lengths are hashed before each part, so no two different
    lists of passages run together into the same bytes.
    """
    h = hashlib.blake2b(digest_size=20)
    h.update(f"{max_window_tokens}:{overlap_sentences}:{len(evidence)}".encode())
    for ev in evidence:
        for part in (ev.id, "flat" if ev.metadata.get("flattened") else "text", ev.text):
            data = part.encode("utf-8", "surrogatepass")
            h.update(len(data).to_bytes(8, "little"))
            h.update(data)
    return h.digest()


class IndexCache:
    """A thread-safe LRU of :class:`ContextIndex` by :func:`context_key`.

    Bounded twice: at most ``max_entries`` contexts, and at most ``max_chars`` characters of evidence
    in all (an index holds its windows' texts, about twice the context with overlap, and postings for
    every term, so memory follows the characters, not the entry count). A context larger than
    ``max_chars`` is indexed for its call and not kept. Least recently used entries go first.

    Defaults: 64 entries (the contexts a busy service or a ``check_batch`` chunk is checking at once,
    with room for the passage subsets that citations cite) and 2,000,000 characters (an index with
    its BM25 postings and window figures takes ~5.5 MB per million characters, measured on RAGTruth
    contexts with tracemalloc, so ~11 MB at most; a 2k-token context is ~10,000 characters, so 64 of
    them take ~640,000).

    A build runs outside the lock, so a slow context never blocks calls on others; two threads that
    miss on the same key at once both build it and the first one stored is kept.
    """

    def __init__(self, max_entries: int = 64, max_chars: int = 2_000_000) -> None:
        if max_entries < 0 or max_chars < 0:
            raise InputError(f"max_entries and max_chars must be >= 0, got {max_entries} and {max_chars}")
        self.max_entries = max_entries
        self.max_chars = max_chars
        self._entries: OrderedDict[bytes, tuple[ContextIndex, int]] = OrderedDict()
        self._chars = 0
        self._lock = threading.Lock()
        self.hits = 0
        self.builds = 0

    def get(self, key: bytes, chars: int, build: Callable[[], ContextIndex]) -> ContextIndex:
        """The index stored under ``key``, else ``build()`` (kept when it fits; ``chars``: its evidence's size)."""
        with self._lock:
            found = self._entries.get(key)
            if found is not None:
                self._entries.move_to_end(key)
                self.hits += 1
                return found[0]
        index = build()
        with self._lock:
            self.builds += 1
            if self.max_entries == 0 or chars > self.max_chars:
                return index
            found = self._entries.get(key)
            if found is not None:  # built by another thread meanwhile: keep one
                return found[0]
            self._entries[key] = (index, chars)
            self._chars += chars
            while len(self._entries) > self.max_entries or self._chars > self.max_chars:
                _, (_, size) = self._entries.popitem(last=False)
                self._chars -= size
        return index

    def clear(self) -> None:
        """Forget every index (benchmarks clear it so that no configuration is timed warm)."""
        with self._lock:
            self._entries.clear()
            self._chars = 0

    def __len__(self) -> int:
        return len(self._entries)

    @property
    def chars(self) -> int:
        """Characters of evidence held now (at most ``max_chars``)."""
        return self._chars


#: The cache every ``EvidenceSelector`` shares unless given its own: indexes depend only on the
#: evidence and the window settings (part of the key), never on which selector or verifier asks.
INDEX_CACHE = IndexCache()


class EvidenceSelector:
    """Picks, for each claim, the ``top_k`` evidence windows most likely to decide it.

    ``method``: ``"bm25"`` (lexical), ``"embedding"`` (MiniLM cosine) or ``"hybrid"`` (the default):
    ``lexical_weight`` x min-max-normalised BM25 + the rest x min-max-normalised cosine, per claim.
    Lexical matching finds the exact number or name a claim repeats, embeddings the paraphrase.
    Measured on WiCE claim dev (319 claims with gold supporting sentences, top 3 windows; share of
    claims with a gold sentence inside / a whole gold set inside; ``scripts/bench_evidence.py``):

        windows of      bm25          embedding     RRF (k=60)    min-max 0.5 (default)
        200 tokens      1.000/0.868   0.959/0.771   0.994/0.853   0.997/0.859
         80 tokens      0.972/0.658   0.900/0.514   0.972/0.643   0.972/0.674

    A window's embedding score is its best sentence's cosine (see ``_cosines``); embedding whole
    windows instead gave 0.956/0.765 and 0.991/0.859 at 200 tokens, at three times the cost.

    Score fusion beat reciprocal-rank fusion, which throws away how far ahead a window is; on these
    Wikipedia-style claims BM25 alone is as good (and needs no model); the embedding side is there
    for paraphrasing answers, which WiCE does not measure.

    Sentences are embedded once per call, never per claim. Embedding is the cost (~0.7 ms per
    25-token sentence on 2 idle cores, ~14 ms per 200-token window), so with more than ``max_embedded_windows`` windows
    (a long context) only each claim's ``shortlist`` best BM25 windows are embedded, taken rank by
    rank across claims up to ``max_embedded_windows`` in all; the others keep their BM25 score only.
    ``method="embedding"`` always embeds every window (slow on long contexts).

    BM25 is a small numpy implementation: on 5 windows 0.31 ms against 0.75 ms for ``bm25s``
    (index + 2 queries), on par at 50-1,500 windows (both noise next to embedding).

    A context's windows and index are built once (:meth:`index`) and kept in ``index_cache`` (the
    shared :data:`INDEX_CACHE` by default; ``IndexCache(max_entries=0)`` keeps none): every claim of
    an answer is ranked in one pass over it, and later calls with the same documents reuse it.

    The selector holds no per-call state; one instance can serve concurrent calls.
    """

    def __init__(
        self,
        top_k: int = 3,
        method: Literal["hybrid", "bm25", "embedding"] = "hybrid",
        max_window_tokens: int = 200,
        embedder: "Embedder | None" = None,
        *,
        overlap_sentences: int = 1,
        max_embedded_windows: int = 64,
        shortlist: int = 16,
        lexical_weight: float = 0.5,
        index_cache: IndexCache | None = None,
    ) -> None:
        if top_k < 1:
            raise InputError(f"top_k must be at least 1, got {top_k}")
        if method not in ("hybrid", "bm25", "embedding"):
            raise InputError(f"method must be 'hybrid', 'bm25' or 'embedding', got {method!r}")
        self.top_k = top_k
        self.method = method
        self.max_window_tokens = max_window_tokens
        self.overlap_sentences = overlap_sentences
        self.max_embedded_windows = max_embedded_windows
        self.shortlist = shortlist
        if not 0.0 <= lexical_weight <= 1.0:
            raise InputError(f"lexical_weight must be within 0..1, got {lexical_weight}")
        self.lexical_weight = lexical_weight
        self._embedder = embedder
        self.index_cache = INDEX_CACHE if index_cache is None else index_cache

    @property
    def embedder(self) -> "Embedder":
        if self._embedder is None:
            from .embeddings import Embedder

            self._embedder = Embedder.default()
        return self._embedder

    def windows(self, evidence: Sequence[Evidence]) -> list[Window]:
        """All windows of all evidence, in context order."""
        out: list[Window] = []
        for ev in evidence:
            out.extend(make_windows(ev, self.max_window_tokens, self.overlap_sentences))
        return out

    def index(self, evidence: Sequence[Evidence]) -> ContextIndex:
        """The context's :class:`ContextIndex`, from ``index_cache`` when these documents were seen before."""
        key = context_key(evidence, self.max_window_tokens, self.overlap_sentences)
        return self.index_cache.get(key, sum(len(ev.text) for ev in evidence), lambda: ContextIndex(self.windows(evidence)))

    def select(self, claims: list[Claim], evidence: list[Evidence], question: str | None = None) -> list[VerificationItem]:
        """One item per claim, in claim order, each with at most ``top_k`` windows in context order."""
        if not claims:
            return []
        index = self.index(evidence)
        windows = index.windows
        if not windows:
            return [VerificationItem(claim=c, windows=[], question=question) for c in claims]
        queries = [strip_citation_markers(c.check_text) for c in claims]
        scores = self.score(queries, windows, question, index=index)
        k = min(self.top_k, len(windows))
        items = []
        for c, query, row in zip(claims, queries, scores):
            best = [int(i) for i in np.argsort(-row, kind="stable")[:k]]
            values = _values(query)
            if values and k > 1:
                best = _anchor_values(best, values, row, index.window_values)
            picked = [windows[i].model_copy(update={"score": float(row[i])}) for i in sorted(best)]
            items.append(VerificationItem(claim=c, windows=picked, question=question))
        return items

    def score(self, queries: Sequence[str], windows: Sequence[Window], question: str | None = None, *,
              index: ContextIndex | None = None) -> np.ndarray:
        """(len(queries), len(windows)) relevance matrix, higher is better; the ranking the selector uses.

        ``index``: the windows' :class:`ContextIndex` when the caller has it (``select`` does), else one
        is built for this call.
        """
        if index is None:
            index = ContextIndex(list(windows))
        lexical = None
        if self.method in ("bm25", "hybrid"):
            q_terms = [content_terms(q) for q in queries]
            fallback = content_terms(question) if question else []
            # A claim with no content word ("Yes, it is.") is matched through the question it answers.
            lexical = np.stack([index.bm25.scores(t or fallback) for t in q_terms])
            if self.method == "bm25":
                return lexical
        dense = self._cosines(queries, index, lexical)
        if self.method == "embedding":
            return dense
        assert lexical is not None
        return self.lexical_weight * _minmax(lexical) + (1.0 - self.lexical_weight) * _minmax(dense)

    def _cosines(self, queries: Sequence[str], index: ContextIndex, lexical: np.ndarray | None) -> np.ndarray:
        embedder = self.embedder
        n = len(index.windows)
        if lexical is not None and n > self.max_embedded_windows:
            # Long context: embed each claim's best BM25 windows, rank by rank across claims (every
            # claim's first choice, then every second choice, ...), at most max_embedded_windows in all.
            order = np.argsort(-lexical, axis=1, kind="stable")[:, : self.shortlist]
            chosen: dict[int, None] = {}
            for col in order.T:
                for i in col:
                    if len(chosen) < self.max_embedded_windows:
                        chosen.setdefault(int(i), None)
            keep = np.array(sorted(chosen), dtype=np.int64)
        else:
            keep = np.arange(n)
        # A window's meaning-match is its best sentence's: short texts cost the int8 model half as much
        # per token as 200-token windows, the overlap between windows is embedded once, and the
        # heuristic reads these same sentences (sentences_of), so they are cache hits when it checks.
        texts: dict[str, int] = {}
        members: list[list[int]] = []
        for i in keep:
            members.append([texts.setdefault(t, len(texts)) for t in index.sentences(int(i))])
        q = embedder.encode([t.strip() for t in queries])
        sims = q @ embedder.encode(list(texts)).T
        dense = np.full((len(queries), n), -1.0, dtype=np.float64)  # not embedded: ranked after every embedded window
        for col, rows in zip(keep, members):
            dense[:, col] = sims[:, rows].max(axis=1)
        return dense
