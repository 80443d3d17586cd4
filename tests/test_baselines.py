"""Token-overlap and embedding-similarity baselines, and the make_verifier specs of every seed detector."""

from __future__ import annotations

import math

import pytest

from guardrail.errors import ConfigError
from guardrail.llm import OpenAIChat
from guardrail.types import Claim, Label, VerificationItem, Window
from guardrail.verifiers import Verifier, make_verifier
from guardrail.verifiers.baselines import EmbeddingVerifier, OverlapVerifier, cosine_to_score, overlap_score

EVIDENCE = ("The Eiffel Tower is a wrought-iron lattice tower in Paris, France. It was completed in 1889 "
            "as the entrance to the World's Fair. The tower is 330 metres tall.")


def item(text: str, cid: str = "c", windows: list[Window] | None = None, question: str | None = None) -> VerificationItem:
    if windows is None:
        windows = [Window(evidence_id="wiki", start=0, end=len(EVIDENCE), text=EVIDENCE)]
    return VerificationItem(claim=Claim(id=cid, text=text, start=0, end=len(text)), windows=windows, question=question)


# -- overlap ----------------------------------------------------------------------------------


def test_overlap_score_is_the_mean_of_missing_unigram_and_bigram_shares():
    # content terms: eiffel tower complet 1925 -> 1925 missing (1/4); bigrams: (tower, complet) and
    # (complet, 1925) missing (2/3): the evidence says "It was completed", not "Tower was completed"
    score, missing, miss_bi, n_bi = overlap_score("The Eiffel Tower was completed in 1925.", [EVIDENCE])
    assert missing == ["1925"] and (miss_bi, n_bi) == (2, 3)
    assert score == pytest.approx(0.5 * 1 / 4 + 0.5 * 2 / 3)
    assert overlap_score("It was completed in 1889.", [EVIDENCE])[0] == 0.0
    # bigrams only count within one evidence text
    assert overlap_score("lattice tower", ["a lattice", "tower"])[2:] == (1, 1)
    one = overlap_score("Paris.", ["Rome is old."])
    assert one[0] == 1.0 and one[3] == 0  # one term, no bigram: the unigram share alone
    assert math.isnan(overlap_score("It is what it is.", [EVIDENCE])[0])


def test_overlap_flags_fabrication_and_ranks_swapped_facts_above_the_faithful_claim():
    v = OverlapVerifier()
    faithful, swapped, fabricated = v.verify([
        item("It was completed in 1889.", "a"),
        item("It was completed in 1925 in London.", "b"),
        item("Gustave Eiffel designed the Statue of Liberty's internal frame.", "c"),
    ])
    assert faithful.label is Label.supported and faithful.hallucination_score == 0.0 and faithful.verifier == "overlap"
    assert swapped.hallucination_score > faithful.hallucination_score
    assert "1925" in swapped.reason and "london" in swapped.reason
    assert fabricated.label is Label.unsupported and fabricated.hallucination_score >= 0.5
    assert fabricated.confidence == pytest.approx(fabricated.hallucination_score)
    assert faithful.evidence_ids == ["wiki"] and faithful.evidence_span is not None
    assert "1889" in faithful.evidence_span.text
    assert EVIDENCE[faithful.evidence_span.start:faithful.evidence_span.end] == faithful.evidence_span.text


def test_overlap_cannot_check_claims_without_words_or_evidence():
    no_words, no_windows = OverlapVerifier().verify([item("It is what it is.", "a"), item("Paris.", "b", windows=[])])
    assert no_words.label is Label.unevaluatable and "no content word" in no_words.reason
    assert no_windows.label is Label.unevaluatable and "no evidence" in no_windows.reason
    with pytest.raises(ValueError):
        OverlapVerifier(threshold=0)


# -- embedding --------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def embedding() -> EmbeddingVerifier:
    return EmbeddingVerifier()


def test_cosine_to_score_is_a_falling_logistic():
    assert cosine_to_score(0.6) == pytest.approx(0.5)
    assert cosine_to_score(0.8) == pytest.approx(1 / (1 + math.exp(2)))
    assert cosine_to_score(0.9) < cosine_to_score(0.6) < cosine_to_score(0.3)
    assert cosine_to_score(0.5, center=0.5) == pytest.approx(0.5)


def test_embedding_supports_a_paraphrase_and_flags_an_unrelated_claim(embedding):
    faithful, off_topic, unrelated = embedding.verify([
        item("The Eiffel Tower, in Paris, was finished in 1889.", "a"),
        item("The Louvre is the most visited art museum in the world.", "b"),
        item("Photosynthesis converts sunlight into chemical energy in plants.", "c"),
    ])
    assert faithful.label is Label.supported and faithful.hallucination_score < 0.2
    assert unrelated.label is Label.unsupported and unrelated.hallucination_score > 0.9
    assert faithful.hallucination_score < off_topic.hallucination_score < unrelated.hallucination_score
    assert faithful.verifier == "embedding" and "cosine" in faithful.reason
    span = faithful.evidence_span
    assert span is not None and EVIDENCE[span.start:span.end] == span.text and "1889" in span.text


def test_embedding_misses_a_swapped_name_in_a_copied_sentence(embedding):
    """The documented blind spot (docs/detectors.md): one changed name hardly moves the embedding."""
    copied, swapped = embedding.verify([
        item("The Eiffel Tower is a wrought-iron lattice tower in Paris, France.", "a"),
        item("The Eiffel Tower is a wrought-iron lattice tower in Berlin, Germany.", "b"),
    ])
    assert copied.hallucination_score < swapped.hallucination_score < 0.5
    assert swapped.label is Label.supported


def test_embedding_uses_every_window_and_reports_unevaluatable_items_in_place(embedding):
    w1 = Window(evidence_id="a", start=0, end=21, text="Bananas are a fruit.")
    text2 = "Mount Everest is 8,849 metres high."
    w2 = Window(evidence_id="b", start=100, end=100 + len(text2), text=text2)
    out = embedding.verify([item("Everest is 8,849 metres tall.", "x", windows=[w1, w2]), item("Nothing.", "y", windows=[]),
                            item("[1]", "z")])
    assert [v.claim_id for v in out] == ["x", "y", "z"]
    assert out[0].evidence_span is not None and out[0].evidence_span.evidence_id == "b"
    assert out[0].evidence_span.start == 100 and out[0].evidence_ids == ["a", "b"]
    assert out[1].label is Label.unevaluatable and out[2].label is Label.unevaluatable


# -- specs ------------------------------------------------------------------------------------


def test_make_verifier_builds_every_baseline_with_options():
    llm = OpenAIChat(base_url="http://127.0.0.1:9/v1", model="m")
    built = {spec: make_verifier(spec, llm) for spec in [
        "overlap", "embedding", "selfcheck", "logprob", "prompt-judge", "judge",
        "overlap:threshold=0.3", "selfcheck:n=3,temperature=0.7,comparer=overlap", "logprob:mode=echo,stat=mean",
        "prompt-judge:per=claim,max_claims=4"]}
    for v in built.values():
        assert isinstance(v, Verifier)
    assert [built[s].name for s in ("overlap", "embedding", "selfcheck", "logprob", "prompt-judge", "judge")] == [
        "overlap", "embedding", "selfcheck", "logprob", "prompt-judge", "llm-judge"]
    assert built["overlap:threshold=0.3"].threshold == 0.3
    sc = built["selfcheck:n=3,temperature=0.7,comparer=overlap"]
    assert (sc.n_samples, sc.temperature, sc.comparer.name) == (3, 0.7, "overlap")
    assert built["selfcheck"].comparer.name == "heuristic-v0" and built["selfcheck"].n_samples == 5
    lp = built["logprob:mode=echo,stat=mean"]
    assert (lp.mode, lp.stat, lp.template) == ("echo", "mean", "chatml")
    pj = built["prompt-judge:per=claim,max_claims=4"]
    assert (pj.per, pj.max_claims) == ("claim", 4)


@pytest.mark.parametrize("spec, llm, message", [
    ("selfcheck", None, "needs an LLM"),
    ("prompt-judge", None, "needs an LLM"),
    ("logprob:mode=beam", "llm", "mode must be one of grammar, echo"),
    ("selfcheck:n=many", "llm", "n must be an integer"),
    ("selfcheck:n=0", "llm", "n_samples must be at least 1"),
    ("overlap:bogus=1", None, "bad option 'bogus=1'"),
    ("embedding:center", None, "bad option 'center'"),
    ("bleu", None, "overlap, embedding, selfcheck, logprob or prompt-judge"),
])
def test_make_verifier_names_what_is_wrong(spec, llm, message):
    model = OpenAIChat(base_url="http://127.0.0.1:9/v1", model="m") if llm else None
    with pytest.raises(ConfigError, match="verifier") as err:
        make_verifier(spec, model)
    assert message in str(err.value)


def test_logprob_needs_a_completions_client():
    class ChatOnly:
        def chat(self, messages, **kw):
            return ""

        async def achat(self, messages, **kw):
            return ""

    with pytest.raises(ConfigError, match="completions endpoint"):
        make_verifier("logprob", ChatOnly())


def test_guardrail_runs_a_baseline_spec_end_to_end_at_its_own_threshold():
    from guardrail import Guardrail

    guard = Guardrail(verifier="overlap:threshold=0.4")
    assert guard.threshold == 0.4 and guard.verifier.name == "overlap"
    report = guard.check("The Eiffel Tower was completed in 1889. It was designed by Leonardo da Vinci.", EVIDENCE)
    assert [v.label for v in report.verdicts] == [Label.supported, Label.unsupported]
    assert report.hallucinated and [c.text for c, _ in report.flagged] == ["It was designed by Leonardo da Vinci."]
