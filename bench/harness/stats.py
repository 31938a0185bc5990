"""min / median / max over reps, and ratios taken per rep."""

import statistics


def stats(values):
    values = [v for v in values if isinstance(v, (int, float)) and not isinstance(v, bool)]
    if not values:
        return None
    return {"min": min(values), "median": statistics.median(values),
            "max": max(values), "n": len(values)}


def by_rep(runs, metric, **match):
    """{rep: value} of the records whose fields match."""
    d = {}
    for r in runs:
        if all(r.get(k) == v for k, v in match.items()) and isinstance(r.get(metric), (int, float)):
            d.setdefault(r["rep"], r[metric])
    return d


def ratio_values(num, den):
    """num / den per rep (the same rep of both), where den is non-zero."""
    return [num[k] / den[k] for k in num if k in den and den[k]]


def ratio_stats(num, den):
    return stats(ratio_values(num, den))
