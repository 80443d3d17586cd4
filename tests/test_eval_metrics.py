"""Metric functions against values worked out by hand (the arithmetic is in the comments)."""

from __future__ import annotations

import pytest

from guardrail.eval import metrics as m


def test_precision_recall_f1_and_confusion():
    y = [True, True, True, False, False, False, False]
    p = [True, True, False, True, False, False, False]
    assert m.confusion(y, p) == m.Confusion(tp=2, fp=1, fn=1, tn=3)
    prec, rec, f1 = m.precision_recall_f1(y, p)
    assert prec == pytest.approx(2 / 3) and rec == pytest.approx(2 / 3) and f1 == pytest.approx(2 / 3)
    # Nothing flagged: precision and F1 are 0 by convention, not an error.
    assert m.precision_recall_f1([True, False], [False, False]) == (0.0, 0.0, 0.0)
    with pytest.raises(ValueError):
        m.confusion([True], [True, False])


def test_balanced_accuracy():
    y = [True, True, True, False, False, False, False]
    p = [True, True, False, True, False, False, False]
    # recall on hallucinated 2/3, on faithful 3/4 -> (0.6667 + 0.75) / 2
    assert m.balanced_accuracy(y, p) == pytest.approx((2 / 3 + 3 / 4) / 2)
    assert m.balanced_accuracy([True, True], [True, False]) is None  # one class only


def test_roc_auc_with_ties():
    # pos scores 0.9, 0.5 ; neg scores 0.5, 0.1
    # pairs: (0.9>0.5)=1, (0.9>0.1)=1, (0.5=0.5)=0.5, (0.5>0.1)=1 -> 3.5 / 4
    assert m.roc_auc([True, True, False, False], [0.9, 0.5, 0.5, 0.1]) == pytest.approx(0.875)
    assert m.roc_auc([True, False], [0.2, 0.8]) == 0.0
    assert m.roc_auc([True, False, False], [0.3, 0.3, 0.3]) == pytest.approx(0.5)
    assert m.roc_auc([True, True], [0.1, 0.2]) is None
    with pytest.raises(ValueError):
        m.roc_auc([True, False], [0.5, float("nan")])


def test_ece_and_reliability_bins():
    # 2 bins: [0, .5) holds 0.1, 0.3 (y 0, 1): mean .2 vs rate .5 -> gap .3
    #         [.5, 1] holds 0.8, 1.0 (y 1, 1): mean .9 vs rate 1  -> gap .1
    y = [False, True, True, True]
    s = [0.1, 0.3, 0.8, 1.0]
    bins = m.reliability_bins(y, s, bins=2)
    assert [b.count for b in bins] == [2, 2]
    assert bins[0].mean_score == pytest.approx(0.2) and bins[0].observed_rate == pytest.approx(0.5)
    assert bins[1].mean_score == pytest.approx(0.9) and bins[1].observed_rate == 1.0
    assert m.ece(y, s, bins=2) == pytest.approx(0.5 * 0.3 + 0.5 * 0.1)
    # Ten bins, one empty bin in the middle is skipped, not counted as a gap.
    assert m.ece([True, False], [0.95, 0.05]) == pytest.approx(0.05)
    assert m.ece([], []) is None


def test_pr_curve_and_best_threshold():
    y = [True, False, True, False, False]
    s = [0.9, 0.8, 0.6, 0.6, 0.1]
    pts = m.pr_curve(y, s)
    # t=.9: 1/1, r=.5 ; t=.8: 1/2, r=.5 ; t=.6: 2/4, r=1 ; t=.1: 2/5, r=1
    assert [(p.threshold, round(p.precision, 4), p.recall) for p in pts] == [
        (0.9, 1.0, 0.5), (0.8, 0.5, 0.5), (0.6, 0.5, 1.0), (0.1, 0.4, 1.0)
    ]
    # F1: .6667, .5, .6667, .5714 -> tie between .9 and .6; the higher threshold wins.
    t, f1 = m.best_f1_threshold(y, s)
    assert t == 0.9 and f1 == pytest.approx(2 / 3)
    # AP: .5 * 1 + .5 * .5
    assert m.average_precision(y, s) == pytest.approx(0.75)
    assert m.best_f1_threshold([False, False], [0.2, 0.4]) is None
    assert m.pr_curve([False], [0.3]) == []


def test_best_threshold_prefers_the_better_cut():
    y = [True, True, False, False]
    s = [0.7, 0.4, 0.3, 0.2]
    # t=.4 flags both hallucinated and nothing else: F1 1.0
    assert m.best_f1_threshold(y, s) == (0.4, 1.0)


def test_span_f1():
    # response 1: flagged 0-10, gold 5-15 -> tp 5, fp 5, fn 5
    # response 2: flagged nothing, gold 0-4 -> fn 4 ; overlapping flagged stretches count once
    assert m.span_counts([(0, 10), (5, 8)], [(5, 15)]) == (5, 5, 5)
    f1 = m.span_f1([([(0, 10)], [(5, 15)]), ([], [(0, 4)])])
    assert f1 == pytest.approx(2 * 5 / (2 * 5 + 5 + 9))
    assert m.span_f1([([], [])]) is None


def test_latency_percentiles():
    lat = [10.0, 20.0, 30.0, 40.0, 50.0]
    # p50 the middle value; p95: position .95*4 = 3.8 -> 40 + .8*10
    assert m.latency_percentiles(lat) == {"p50": 30.0, "p95": pytest.approx(48.0)}
    assert m.latency_percentiles([]) == {"p50": None, "p95": None}


def test_proxy_metrics():
    # claims of a clean answer: 4, one flagged ; of a hallucinated answer: 2, both flagged
    labels = [False, False, False, False, True, True]
    scores = [0.1, 0.2, 0.9, 0.3, 0.8, 0.95]
    flagged = [s >= 0.5 for s in scores]
    p = m.proxy_metrics(labels, scores, flagged)
    assert (p.clean_claims, p.hallucinated_claims) == (4, 2)
    assert p.clean_flag_rate == 0.25 and p.hallucinated_flag_rate == 1.0 and p.flag_rate_ratio == 4.0
    # AUC: .8 beats 3 of 4 clean, .95 beats all 4 -> 7/8
    assert p.claim_auc == pytest.approx(7 / 8)
    none_clean_flagged = m.proxy_metrics([False, True], [0.1, 0.9], [False, True])
    assert none_clean_flagged.flag_rate_ratio is None  # division by zero is not a number
