"""Bad arguments raise the project's errors (guardrail/errors.py), which the CLI prints as one line, not a traceback.

Each case used to be a bare ValueError; the error tree keeps ``ValueError`` as a base, so callers
that caught it still do.
"""

from __future__ import annotations

import pytest

from guardrail.errors import ConfigError, GuardrailError, InputError
from guardrail.eval.metrics import confusion, reliability_bins
from guardrail.llm import OpenAIChat
from guardrail.policy import EvidenceRewriter
from guardrail.verifiers.baselines import EmbeddingVerifier, OverlapVerifier
from guardrail.verifiers.cascade import CascadeVerifier
from guardrail.verifiers.heuristic import HeuristicVerifier
from guardrail.verifiers.prompt_judge import PromptJudgeVerifier
from guardrail.verifiers.selfcheck import SelfCheckVerifier, make_comparer

LLM = OpenAIChat(base_url="http://127.0.0.1:9/v1", model="m")


@pytest.mark.parametrize("build, message", [
    (lambda: OverlapVerifier(threshold=0), "threshold"),
    (lambda: EmbeddingVerifier(width=0), "width"),
    (lambda: CascadeVerifier(HeuristicVerifier(), HeuristicVerifier(), band=(0.8, 0.2)), "band"),
    (lambda: SelfCheckVerifier(LLM, n_samples=0), "n_samples"),
    (lambda: make_comparer("bleu"), "unknown comparer"),
    (lambda: PromptJudgeVerifier(LLM, per="sentence"), "per must be"),
    (lambda: EvidenceRewriter(min_overlap=0), "min_overlap"),
])
def test_bad_settings_are_config_errors(build, message):
    with pytest.raises(ConfigError, match=message) as err:
        build()
    assert isinstance(err.value, GuardrailError) and isinstance(err.value, ValueError)


def test_mismatched_eval_inputs_are_input_errors():
    with pytest.raises(InputError, match="predictions"):
        confusion([True, False], [True])
    with pytest.raises(InputError, match="bins"):
        reliability_bins([True], [0.5], bins=0)
