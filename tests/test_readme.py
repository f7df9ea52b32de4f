"""Every ```python snippet of the README runs as written, and says what it shows.

Snippets that use diffprivlib skip where it does not import. The snippets
fix their seeds, so these tests are deterministic (no false-failure rate).
"""

import re
import warnings
from pathlib import Path

import pytest

from skdp_anomaly.exceptions import ChangePointNoiseWarning
from skdp_anomaly.exceptions import DPSMOTENoiseWarning
from skdp_anomaly.exceptions import PrivacyLeakWarning

from _diffprivlib import AVAILABLE, REASON

README = Path(__file__).resolve().parents[1] / "README.md"
SNIPPETS = re.findall(r"```python\n(.*?)```", README.read_text(), re.S)


def test_the_readme_has_the_six_snippets():
    assert len(SNIPPETS) == 6


def printed_as_commented(out: list, code: str) -> None:
    """Every printed line is what a comment of the snippet says, in order: the
    comment starts with it."""
    comments = [c.strip() for c in re.findall(r"#([^\n]*)", code)]
    at = 0
    for line in out:
        while at < len(comments) and not comments[at].startswith(line.strip()):
            at += 1
        assert at < len(comments), f"printed {line!r}, which no comment after the last says"
        at += 1


@pytest.mark.parametrize(
    "code",
    SNIPPETS,
    ids=["classifier", "dpsmote", "changepoint", "online_svc", "group_search", "audit"],
)
def test_snippet_runs(code, capsys):
    if "diffprivlib" in code and not AVAILABLE:
        pytest.skip(REASON)
    namespace = {}
    with warnings.catch_warnings():
        for ours in (DPSMOTENoiseWarning, PrivacyLeakWarning, ChangePointNoiseWarning):
            warnings.simplefilter("error", ours)  # the first example must just work
        exec(compile(code, str(README), "exec"), namespace)
    out = capsys.readouterr().out.splitlines()
    printed_as_commented(out, code)
    if "DPImbalancedClassifier" in code:
        assert namespace["clf"].privacy_spent_.epsilon == pytest.approx(2.0)
        assert namespace["clf"].privacy_assumptions() == ()
    elif "DPSMOTE" in code:
        # the minority recall the README quotes (DP-LR alone: 0.0125)
        assert out[-1] == "0.7625"
        assert namespace["report"].epsilon == pytest.approx(2.0)
    elif "PrivateChangePointDetector" in code:
        assert abs(namespace["det"].change_point_ - 600) <= 100
        assert abs(namespace["online"].change_point_ - 6000) <= 100
    elif "NoisyGroupSearch" in code:
        assert 31_415 in namespace["search"].candidates_
        # the numbers the README quotes
        assert out[0] == "[ 9105 31415 62259 71222]" and out[1] == "20 1.66 33.2"
        search = namespace["search"]
        assert search.privacy_spent_.anomaly_restricted
        assert search.privacy_spent_.epsilon <= search.privacy_cost().epsilon == 70.0
    elif "PrivateOnlineActiveSVC" in code:
        svc = namespace["svc"]
        assert out == ["41649", "0.9952"]  # the numbers the README quotes
        # the labelled windows (65 % of each round) are read whole; the active ones select
        assert svc.n_labels_requested_ <= 50_000 * 0.9
    else:
        assert 0.95 <= namespace["result"].epsilon_lower_bound <= 1.0
