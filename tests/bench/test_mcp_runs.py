"""`rpa-mcp bench mcp --runs K`: the median over runs of each run's ratios, and a bad K refused."""

from __future__ import annotations

import pytest

from rpa_mcp.bench import mcp
from rpa_mcp.errors import InvalidInput


def _run(bare: float, ours: float) -> mcp.Interleaved:
    # 10 calls per side: a run's p99 is its largest call here, its median the common value
    return mcp.Interleaved([bare] * 9 + [2 * bare], [ours] * 9 + [3 * ours], [ours / bare], 1.0, 1.0)


def test_over_runs_is_the_median_of_each_runs_ratios() -> None:
    line = mcp.over_runs([_run(4.0, 4.4), _run(4.0, 6.0), _run(4.0, 4.8)])
    # medians 1.10, 1.50, 1.20 -> 1.20; p99s 3*ours / 2*bare: 1.65, 2.25, 1.80 -> 1.80
    assert line == (
        "over 3 runs: ratio ours/bare median 1.20, p99 1.80 (each run median/p99: 1.10/1.65, 1.50/2.25, 1.20/1.80)"
    )


@pytest.mark.parametrize("value", ["0", "51", "x", None])
def test_a_bad_number_of_runs_is_refused_before_anything_starts(value: str | None) -> None:
    argv = ["--runs", value] if value is not None else ["--runs"]
    with pytest.raises(InvalidInput, match="--runs takes a number of runs from 1 to 50") as err:
        mcp.run([*argv, "sqlite"])
    assert err.value.details["field"] == "--runs"
