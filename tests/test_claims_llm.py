"""LLMClaimExtractor: claims mapped back to answer offsets, drops counted, fallback on failure."""

from __future__ import annotations

import json

import pytest
from openai_stub import Reply, openai_stub  # noqa: F401  (fixture)

from guardrail.claims_llm import LLMClaimExtractor
from guardrail.errors import LLMError, LLMResponseError
from guardrail.llm import OpenAIChat
from guardrail.types import Claim

ANSWER = ("The Eiffel Tower was completed in 1889 [1]. It is  330 metres tall and\nstands in Paris [2]. "
          "Hope this helps!")


def extractor(stub, **kw) -> LLMClaimExtractor:
    return LLMClaimExtractor(OpenAIChat(base_url=stub.base_url, model="m", backoff_s=0.0, max_retries=0), **kw)


def claims_json(*pairs: tuple[str, str]) -> str:
    return json.dumps([{"claim": c, "source": s} for c, s in pairs])


class FixedExtractor:
    """Fallback stand-in that splits on '. ' with real offsets."""

    def extract(self, answer: str) -> list[Claim]:
        out, start = [], 0
        for i, part in enumerate(answer.split(". ")):
            out.append(Claim(id=f"s{i}", text=part, start=start, end=start + len(part)))
            start += len(part) + 2
        return out


def test_sources_are_mapped_to_offsets_exact_normalised_and_fuzzy(openai_stub):
    openai_stub.add(claims_json(
        ("The Eiffel Tower is 330 metres tall.", "it is 330 metres tall"),  # case + double space
        ("The Eiffel Tower was completed in 1889.", "The Eiffel Tower was completed in 1889"),  # exact
        ("The Eiffel Tower stands in Paris.", "and stands in Pariss"),  # typo: fuzzy, across the newline
        ("The Eiffel Tower is made of gold.", "made entirely of solid gold"),  # invented by the model
        ("The Eiffel Tower is in Paris.", "located in the French capital"),  # grounded, but no such source
    ))
    result = extractor(openai_stub).extract_detailed(ANSWER, question="Tell me about the Eiffel Tower")
    texts = [c.text for c in result.claims]
    assert texts == ["The Eiffel Tower was completed in 1889", "It is  330 metres tall", "and\nstands in Paris"]
    for c in result.claims:
        assert ANSWER[c.start:c.end] == c.text and c.kind == "llm"
    assert [c.id for c in result.claims] == ["c0", "c1", "c2"]
    assert result.claims[1].statement == "The Eiffel Tower is 330 metres tall."
    assert result.claims[1].check_text == "The Eiffel Tower is 330 metres tall."
    assert [(d.claim, d.reason) for d in result.dropped] == [
        ("The Eiffel Tower is made of gold.", "mostly words not in the answer: made, gold"),
        ("The Eiffel Tower is in Paris.", "source not found in the answer"),
    ]
    assert not result.used_fallback


def test_claims_the_model_made_up_are_dropped_even_when_their_source_exists(openai_stub):
    answer = "Jane Doe founded it in 1991. It makes rockets."
    openai_stub.add(claims_json(
        ("Jane Doe founded Acme in 1991.", "Jane Doe founded it in 1991"),  # 'Acme' comes from the question
        ("Jane Doe founded Acme in 1990.", "Jane Doe founded it"),  # number changed
        ("Acme is a symbol of modern engineering heritage.", "It makes rockets"),  # new words
        ("Acme makes rockets.", "It makes rockets."),
    ))
    result = extractor(openai_stub).extract_detailed(answer, question="Who founded Acme?")
    assert [c.statement for c in result.claims] == ["Jane Doe founded Acme in 1991.", "Acme makes rockets."]
    assert [d.reason.split(":")[0] for d in result.dropped] == ["numbers not in the answer",
                                                                 "mostly words not in the answer"]


def test_citation_markers_attach_to_the_claim_they_follow(openai_stub):
    openai_stub.add(claims_json(("The Eiffel Tower was completed in 1889.", "The Eiffel Tower was completed in 1889"),
                                ("The Eiffel Tower stands in Paris.", "stands in Paris")))
    a, b = extractor(openai_stub).extract(ANSWER)
    assert a.citations == ["[1]"] and b.citations == ["[2]"]


def test_repeated_source_prefers_the_occurrence_after_the_previous_claim(openai_stub):
    answer = "Alice won in 2001. Bob came second. Alice won in 2001 again, said the paper."
    openai_stub.add(claims_json(("Bob came second.", "Bob came second"),
                                ("Alice won in 2001 again.", "Alice won in 2001")))
    bob, alice = extractor(openai_stub).extract(answer)
    assert alice.start == answer.rindex("Alice won in 2001") and bob.start < alice.start


def test_prompt_holds_question_answer_and_a_worked_example(openai_stub):
    openai_stub.add(claims_json(("The Eiffel Tower stands in Paris.", "stands in Paris")))
    extractor(openai_stub).extract(ANSWER, question="Where is it?")
    msgs = openai_stub.requests[0]["json"]["messages"]
    assert [m["role"] for m in msgs] == ["system", "user", "assistant", "user"]
    assert json.loads(msgs[2]["content"])  # the example reply is itself valid JSON
    assert msgs[3]["content"] == f"Question: Where is it?\n<answer>{ANSWER}</answer>"


def test_wrapped_and_bare_string_replies_are_accepted(openai_stub):
    openai_stub.add(json.dumps({"claims": [{"claim": "The Eiffel Tower stands in Paris.", "source": "stands in Paris"},
                                           "Hope this helps!"]}))
    a, b = extractor(openai_stub).extract(ANSWER)
    assert a.text == "stands in Paris" and b.text == "Hope this helps!" and b.statement == "Hope this helps!"


def test_llm_failure_uses_the_fallback(openai_stub):
    openai_stub.add(Reply(status=500))
    result = extractor(openai_stub, fallback=FixedExtractor()).extract_detailed("One fact. Two facts.")
    assert result.used_fallback and "HTTP 500" in result.reason
    assert [c.text for c in result.claims] == ["One fact", "Two facts."]


def test_llm_failure_without_fallback_raises(openai_stub):
    openai_stub.add("no json here", "still none")
    with pytest.raises(LLMResponseError) as info:
        extractor(openai_stub).extract(ANSWER)
    assert info.value.last_output == "still none"


def test_nothing_locatable_is_a_failure(openai_stub):
    openai_stub.add(claims_json(("Mars is red.", "Mars is red")), claims_json(("Mars is red.", "Mars is red")))
    with pytest.raises(LLMError, match="could be located"):
        extractor(openai_stub).extract(ANSWER)
    result = extractor(openai_stub, fallback=FixedExtractor()).extract_detailed(ANSWER)
    assert result.used_fallback and result.claims


def test_no_claims_and_empty_answer(openai_stub):
    openai_stub.add("[]")
    assert extractor(openai_stub).extract("Hello!") == []
    assert extractor(openai_stub).extract("   ") == [] and len(openai_stub.requests) == 1


async def test_async_extract(openai_stub):
    openai_stub.add("```json\n" + claims_json(("The Eiffel Tower stands in Paris.", "stands in Paris"),) + "\n```")
    (c,) = await extractor(openai_stub).aextract(ANSWER)
    assert ANSWER[c.start:c.end] == "stands in Paris"


def test_sentence_fallback_by_name(openai_stub):
    claims_mod = pytest.importorskip("guardrail.claims", reason="guardrail.claims (helper 'text') not present yet")
    openai_stub.add(Reply(status=500))
    result = extractor(openai_stub, fallback="sentence").extract_detailed("One fact here. Two facts there.")
    expected = claims_mod.SentenceClaimExtractor().extract("One fact here. Two facts there.")
    assert result.used_fallback and result.claims == expected


def test_text_the_llm_left_out_is_reported_as_unchecked(openai_stub):
    # The model extracts the first fact only: the second sentence, which states a fact, must not vanish.
    openai_stub.add(claims_json(("The Eiffel Tower was completed in 1889.", "The Eiffel Tower was completed in 1889")))
    result = extractor(openai_stub).extract_detailed(ANSWER)
    assert [c.text for c in result.claims] == ["The Eiffel Tower was completed in 1889"]
    by_text = {u.text: u for u in result.unchecked}
    left = "It is  330 metres tall and\nstands in Paris"
    assert left in " ".join(by_text), result.unchecked
    assert any(u.factual and u.reason == "not_extracted" and "330" in u.text for u in result.unchecked)
    assert by_text["Hope this helps!"].reason == "pleasantry" and not by_text["Hope this helps!"].factual
    assert all(ANSWER[u.start : u.end] == u.text for u in result.unchecked)
    openai_stub.add(claims_json(("The Eiffel Tower was completed in 1889.", "The Eiffel Tower was completed in 1889")))
    claims, unchecked = extractor(openai_stub).extract_with_unchecked(ANSWER)
    assert [c.text for c in claims] == ["The Eiffel Tower was completed in 1889"] and unchecked == result.unchecked


def test_fallback_extraction_reports_unchecked_too(openai_stub):
    openai_stub.add(Reply(status=500))
    answer = "One fact here. Anything else?"
    result = extractor(openai_stub, fallback="sentence").extract_detailed(answer)
    assert result.used_fallback
    assert [(u.text, u.reason) for u in result.unchecked] == [("Anything else?", "question")]
