"""HeuristicVerifier: features, labels, spans and the protocol, on the shipped embedder."""

from __future__ import annotations

import pytest

from guardrail.evidence import EvidenceSelector, normalize_context
from guardrail.types import Claim, ErrorType, Label, VerificationItem, Window
from guardrail.verifiers import Verifier
from guardrail.verifiers import heuristic
from guardrail.verifiers.heuristic import FEATURES, WEIGHTS, HeuristicVerifier, _dates, _entities, _numbers, _units

CONTEXT = [
    "The Eiffel Tower is a wrought-iron tower in Paris. It was completed in 1889 for the World's Fair. "
    "The tower is 330 metres tall and was designed by the company of Gustave Eiffel.",
    "Mount Everest is the highest mountain on Earth, 8,849 metres above sea level. "
    "The first confirmed ascent was made by Tenzing Norgay and Edmund Hillary in May 1953.",
    "The restaurant offers free Wi-Fi and outdoor seating. It does not take reservations.",
]


@pytest.fixture(scope="module")
def verifier() -> HeuristicVerifier:
    from guardrail.embeddings import Embedder

    return HeuristicVerifier(Embedder(threads=2))


def _check(verifier, texts: list[str], context=CONTEXT, question=None):
    claims = [Claim(id=f"c{i}", text=t, start=0, end=len(t)) for i, t in enumerate(texts)]
    evidence = normalize_context(context)
    items = EvidenceSelector(top_k=2, embedder=verifier.embedder).select(claims, evidence, question)
    return verifier.verify(items), evidence


def test_protocol_and_fitted_weights(verifier):
    assert isinstance(verifier, Verifier) and verifier.name == "heuristic-v0"
    assert len(WEIGHTS) == len(FEATURES) and any(w != 0.0 for w in WEIGHTS), "weights must be fitted"


def test_supported_claims(verifier):
    out, evidence = _check(verifier, ["The Eiffel Tower was completed in 1889 [1].", "Mount Everest is 8,849 metres above sea level."])
    for v in out:
        assert v.label is Label.supported, v.reason
        assert v.hallucination_score < 0.5 and v.confidence == pytest.approx(1 - v.hallucination_score)
        assert v.verifier == "heuristic-v0"
    span = out[0].evidence_span
    text = next(e.text for e in evidence if e.id == span.evidence_id)
    assert text[span.start : span.end] == span.text == "It was completed in 1889 for the World's Fair."
    assert out[1].evidence_span.text.startswith("Mount Everest is the highest mountain")


def test_value_conflicts_are_contradictions(verifier):
    out, _ = _check(
        verifier,
        [
            "Mount Everest is 9,100 metres above sea level.",
            "The first confirmed ascent of Everest was made by Tenzing Norgay and Edmund Hillary in May 1962.",
        ],
    )
    assert [v.label for v in out] == [Label.contradicted, Label.contradicted], [v.reason for v in out]
    assert [v.error_type for v in out] == [ErrorType.number, ErrorType.temporal]
    # Both values side by side, and the evidence span is the conflicting value.
    assert "claim says '9,100 metres'" in out[0].reason and "8,849 metres" in out[0].reason
    assert "1962" in out[1].reason and "1953" in out[1].reason
    assert out[0].differences[0].slot == "number" and out[0].evidence_span.text == "8,849 metres"
    assert all(v.hallucination_score >= 0.5 and v.confidence == v.hallucination_score for v in out)


def test_unsupported_claim(verifier):
    out, _ = _check(verifier, ["The tower also houses a rooftop swimming pool operated by Hilton since 2004."])
    (v,) = out
    assert v.label in (Label.unsupported, Label.contradicted) and v.hallucination_score >= 0.5, v.reason
    assert "hilton" in v.reason


def test_negation_flip_is_named_and_labelled(verifier, monkeypatch):
    (v,), _ = _check(verifier, ["The restaurant does take reservations."])
    assert "negation differs" in v.reason and v.evidence_span.text == "It does not take reservations."
    # The negation features carry no weight (see WEIGHTS); when other evidence flags the claim,
    # the label says what kind of contradiction it is.
    monkeypatch.setattr(heuristic, "BIAS", 5.0)
    (v,), _ = _check(verifier, ["The restaurant does take reservations."])
    assert v.label is Label.contradicted and v.error_type is ErrorType.negation


def test_no_windows_or_no_text_is_unevaluatable(verifier):
    c = Claim(id="x", text="Anything [1]", start=0, end=12)
    only_marker = Claim(id="y", text="[2]", start=0, end=3)
    w = Window(evidence_id="1", start=0, end=5, text="Paris")
    out = verifier.verify([VerificationItem(claim=c, windows=[]), VerificationItem(claim=only_marker, windows=[w])])
    assert [v.label for v in out] == [Label.unevaluatable, Label.unevaluatable]
    assert "no evidence" in out[0].reason and out[0].hallucination_score == 0.5
    assert verifier.verify([]) == []


def test_flattened_data_evidence_span_is_a_line(verifier):
    data = "{'name': 'Apna Indian Kitchen', 'business_stars': 4.5, 'attributes': {'WiFi': 'no', 'OutdoorSeating': True}}"
    out, evidence = _check(verifier, ["It has a rating of 4.5 stars.", "Apna Indian Kitchen is rated 3 stars."], context=data)
    assert out[0].evidence_span.text == "business stars: 4.5"
    assert out[1].label is Label.contradicted and out[1].error_type is ErrorType.number
    ev = evidence[0]
    s = out[0].evidence_span
    assert ev.text[s.start : s.end] == s.text


def test_window_offsets_are_evidence_offsets(verifier):
    text = "Intro sentence here. Paris is the capital of France. Berlin is the capital of Germany."
    w = Window(evidence_id="d", start=21, end=len(text), text=text[21:])
    c = Claim(id="c", text="Berlin is the capital of Germany.", start=0, end=33)
    (v,) = verifier.verify([VerificationItem(claim=c, windows=[w])])
    assert text[v.evidence_span.start : v.evidence_span.end] == "Berlin is the capital of Germany."


def test_feature_extractors():
    assert _numbers("1,000 and 1000, 2.5 million, in 1999; seven") == {1000.0, 2_500_000.0, 7.0}
    assert _dates("In May 2020, on Monday, you may go; the 1990s") == {"may", "2020", "monday", "1990"}
    assert _units("8,849 metres; 45%; business_stars: 4.5\nreview_stars: 5.0") == {
        "metr": {8849.0}, "percent": {45.0}, "star": {4.5, 5.0}
    }
    assert _entities("The Eiffel Tower was built. Then John Smith left.") == {"eiffel", "tower", "john", "smith"}


def test_false_and_null_data_fields(verifier):
    data = (
        "{'name': 'Apna', 'attributes': {'RestaurantsReservations': False, 'BusinessParking': None, 'WiFi': 'no', "
        "'RestaurantsTakeOut': True, 'RestaurantsGoodForGroups': True}}"
    )
    out, _ = _check(verifier, ["Apna accepts reservations.", "Apna offers business parking.", "Apna has no Wi-Fi."], context=data)
    assert out[0].label is Label.contradicted and out[0].error_type is ErrorType.negation, out[0].reason
    assert "Restaurants Reservations" in out[0].reason
    assert out[1].hallucination_score >= 0.5 and "no value (null) for: attributes.Business Parking" in out[1].reason
    assert out[2].label is Label.supported, out[2].reason  # a negated claim agrees with "no"


class _NoEmbedder:
    """Fails the test if anything embeds: the lexical similarity must not need the model."""

    def encode(self, *args, **kwargs):
        raise AssertionError("the lexical heuristic called the embedding model")


def test_lexical_similarity_runs_without_the_embedding_model():
    v = HeuristicVerifier(_NoEmbedder(), similarity="lexical")
    texts = ["The Eiffel Tower was completed in 1889.", "The Eiffel Tower was completed in 1901.",
             "Mount Everest is 8,849 metres high."]
    claims = [Claim(id=f"c{i}", text=t, start=0, end=len(t)) for i, t in enumerate(texts)]
    items = EvidenceSelector(top_k=2, method="bm25", embedder=_NoEmbedder()).select(claims, normalize_context(CONTEXT))
    verdicts = v.verify(items)
    assert verdicts[0].label is Label.supported, verdicts[0]
    assert verdicts[1].label in (Label.contradicted, Label.unsupported), verdicts[1]
    assert verdicts[2].label is Label.supported, verdicts[2]
    best = v.analyse(items)[0].facts["values"]["best_cosine"]
    assert 0.5 < best <= 1.0  # the claim's own sentence is the closest one


def test_unknown_similarity_is_a_clear_error():
    from guardrail.errors import InputError

    with pytest.raises(InputError, match="similarity"):
        HeuristicVerifier(similarity="cosine")


def test_tfidf_cosine_prefers_the_sentence_with_the_rare_words():
    from guardrail.evidence import tfidf_cosine

    sims = tfidf_cosine("The tower was completed in 1889",
                        ["The Eiffel Tower is in Paris.", "It was completed in 1889.", "Paris is large."])
    assert sims.argmax() == 1 and sims[2] == 0.0
    assert tfidf_cosine("", ["a text"]).tolist() == [0.0] and tfidf_cosine("claim", []).size == 0


def test_session21_a_possessive_names_the_name_itself():
    assert _entities("We checked Okoro's serve and Tenzing Norgay's route.") == {"okoro", "tenzing", "norgay"}
