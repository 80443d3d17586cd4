"""Train, export and calibrate the shipped grounding model; see ``guardrail/train/grounding.py``.

    python scripts/train_grounding.py all --work /work/runs/grounding --install
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from guardrail.train.grounding import main  # noqa: E402

if __name__ == "__main__":
    raise SystemExit(main())
