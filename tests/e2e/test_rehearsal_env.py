"""The rehearsal keys calls as the real resume will, in the user's environment.

With ``CLAUDE_CODE_WORKFLOW_SUBAGENT_MODEL`` set, the CLI leaves a call's ``model`` out of its
cache key: a run made and resumed with it set serves its finished calls from cache, and the
rehearsal must key them the same way to say so.
"""

from __future__ import annotations

import pytest

from tests.e2e.test_rehearsal import check, rehearse_then_resume
from tests.realcli import agents_config, run_workflow
from wftop.mockapi.scenario import age_tree

pytestmark = pytest.mark.realcli

SCRIPT = """export const meta = { name: 'mock-models', description: 'Calls that name a model' }
const S = { type: 'object', properties: { agent: { type: 'string' }, ok: { type: 'boolean' } },
  required: ['agent', 'ok'] }
const out = []
for (const name of ['m1', 'm2', 'm3']) {
  const opts = { label: name, schema: S, model: 'haiku' }
  out.push(await agent(`[[agent:${name}]] Step ${name}.`, opts))
}
return out
"""
MODEL = {"CLAUDE_CODE_WORKFLOW_SUBAGENT_MODEL": "sonnet"}


def test_a_variable_that_changes_cache_keys_reaches_the_rehearsal(
    claude_bin, mock_api, cli_home, tmp_path
):
    agents = agents_config(["m1", "m2", "m3"], m3={"delay_s": [120.0, 0.1]})
    killed = run_workflow(
        claude_bin, mock_api, cli_home, SCRIPT, agents, kill_when_agent=("m3", 1), env_extra=MODEL
    )
    assert killed.killed
    age_tree(cli_home.root, 300.0)
    proof = rehearse_then_resume(
        claude_bin, mock_api, cli_home, tmp_path / "work", "resume-owner", MODEL
    )
    check(proof, "model variable resume-owner")
    assert proof.served == {"m1", "m2"}
