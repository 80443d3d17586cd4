"""The fact red team as a script (the same as `guardrail redteam --suite facts`); see guardrail/eval/fact_suite.py.

    python benchmarks/fact_cases.py [--verifier SPEC] [--data dev|holdout|PATH] [--show-failures] [--json OUT]
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from guardrail.eval.fact_suite import main  # noqa: E402

if __name__ == "__main__":
    raise SystemExit(main())
