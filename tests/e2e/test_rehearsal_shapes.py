"""Shapes where the resume's keying order is not the journal's, damaged by the real CLI.

A chain, a pipeline and a pipeline of parallel pairs, each with one call failing for good;
then each strategy: the rehearsal serves from cache exactly what the real resume serves, and
the instant forecast calls no re-run call cached (it used to, on each of these).
"""

from __future__ import annotations

import shutil

import pytest

from tests.e2e.test_rehearsal import check, rehearse_then_resume
from tests.realcli import agents_config, run_workflow
from wftop.mockapi.scenario import age_tree

pytestmark = pytest.mark.realcli

HEAD = """export const meta = { name: 'mock-%s', description: 'A damaged shape', phases: [] }
const S = { type: 'object', properties: { agent: { type: 'string' }, ok: { type: 'boolean' },
  n: { type: 'number' } }, required: ['agent', 'ok'] }
"""
CHAIN = (
    HEAD % "chain"
    + """let prev = null
for (const name of ['c1', 'c2', 'c3', 'c4', 'c5']) {
  prev = await agent(`[[agent:${name}]] Step after ${prev && prev.agent}`,
    { label: name, schema: S })
}
return prev
"""
)
PIPELINE = (
    HEAD % "pipeline"
    + """const items = await pipeline([0, 1, 2, 3],
  (i) => agent(`[[agent:p${i}a]] Draft item ${i}.`, { label: `p${i}a`, schema: S }),
  (r, i) => agent(`[[agent:p${i}b]] Refine ${r.agent}.`, { label: `p${i}b`, schema: S }),
)
return await agent('[[agent:z]] Write the summary.', { label: 'z', schema: S })
"""
)
PAIRS = (
    HEAD % "pairs"
    + """const items = await pipeline([0, 1, 2],
  (i) => parallel([
    () => agent(`[[agent:q${i}x]] Look at item ${i}.`, { label: `q${i}x`, schema: S }),
    () => agent(`[[agent:q${i}y]] Check item ${i}.`, { label: `q${i}y`, schema: S }),
  ]),
  (pair, i) => agent(`[[agent:q${i}m]] Merge ${pair.map((r) => r && r.agent).join(',')}.`,
    { label: `q${i}m`, schema: S }),
)
return await agent('[[agent:z]] Write the summary.', { label: 'z', schema: S })
"""
)
SHAPES = {
    # script, its agents, the one that fails for good, concurrent agents
    "chain": (CHAIN, ["c1", "c2", "c3", "c4", "c5"], "c3", 2),
    "pipeline": (PIPELINE, [f"p{i}{s}" for i in range(4) for s in "ab"] + ["z"], "p3a", 8),
    "pairs": (PAIRS, [f"q{i}{s}" for i in range(3) for s in "xym"] + ["z"], "q0m", 8),
}
FAILS_FOR_GOOD = {"errors": [429, 429, 429], "error_delay_s": 0.5}


@pytest.mark.parametrize("shape", list(SHAPES))
def test_the_rehearsal_and_the_instant_forecast_hold_where_the_journal_misleads(
    claude_bin, mock_api, cli_home, tmp_path, shape
):
    script, names, failing, slots = SHAPES[shape]
    env = {"CLAUDE_CODE_WORKFLOW_MAX_CONCURRENT_AGENTS": str(slots), "CLAUDE_CODE_MAX_RETRIES": "2"}
    agents = agents_config(names, **{failing: FAILS_FOR_GOOD})
    damaged = run_workflow(claude_bin, mock_api, cli_home, script, agents, env_extra=env)
    assert damaged.rc == 0 and damaged.journal_path is not None
    age_tree(cli_home.root, 300.0)
    kept = tmp_path / "damaged"
    shutil.copytree(cli_home.root, kept, symlinks=True, ignore=shutil.ignore_patterns("*.sock"))
    for strategy in ("resume-owner", "surgical"):
        shutil.rmtree(cli_home.root)
        shutil.copytree(kept, cli_home.root, symlinks=True)
        work = tmp_path / strategy
        proof = rehearse_then_resume(claude_bin, mock_api, cli_home, work, strategy)
        check(proof, f"{shape} {strategy}")
