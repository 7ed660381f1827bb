import { existsSync, readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { waitingRunsDir, waitingWorkflowsDir } from '../engine/waiting-stores';
import { openHistory } from '../events/open-history';
import { openHistoryDb, historyPath } from '../events/history-db';
import { EXIT } from '../shells/cli/cli';
import type { WaitingRow } from '../shells/cli/waiting-command';
import { cliWith, journalEvents } from '../../test-support/cli-capture';
import { hostPage, openTestHost } from '../../test-support/host-session';
import { escalatedAgentRun, escalatedWorkflowRun, writeLegacyCheckpoint } from '../../test-support/legacy-waiting-runs';
import { tempFolder } from '../../test-support/temp-folder';
import { tempNotesWorkspace } from '../../test-support/workspace';

/**
 * Issue 26: a data folder an older Steward left with runs waiting for a person (their checkpoints
 * JSON files in `waiting-runs/` and `waiting-workflows/`, a history of schema 2) opens with them
 * still waiting: `steward runs waiting` lists them (moving them into the history database), the
 * app's host lists them, and `steward answer` resumes each to its end; the files stay as backups.
 */

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()?.();
});

describe('runs waiting before the checkpoints moved into the history database', () => {
  it('are listed by steward runs waiting and by the host, and answered by steward answer to their end', async () => {
    const agentWs = tempNotesWorkspace();
    cleanups.push(agentWs.cleanup);
    const workflowWs = tempNotesWorkspace();
    cleanups.push(workflowWs.cleanup);
    const dataDir = tempFolder('steward-waited-before-', cleanups);
    const agent = await escalatedAgentRun(agentWs.dir, agentWs.workspace);
    const workflow = await escalatedWorkflowRun(workflowWs.dir, workflowWs.workspace);

    // The folder as the older Steward left it: the runs' events in a schema-2 history, their checkpoints as files.
    const journal = openHistory(dataDir, { log: () => undefined });
    journal.append([...agent.events, ...workflow.events]);
    journal.close();
    const old = openHistoryDb(historyPath(dataDir));
    old.exec('DROP TABLE waiting');
    old.pragma('user_version = 2');
    old.close();
    const agentFile = writeLegacyCheckpoint(dataDir, agent.checkpoint);
    const workflowFile = writeLegacyCheckpoint(dataDir, workflow.checkpoint);

    const listed = await cliWith(['runs', 'waiting', '--json', '--data-dir', dataDir]);
    expect(listed.code).toBe(0);
    const rows = JSON.parse(listed.stdout) as WaitingRow[];
    expect(rows.map((r) => [r.run_id, r.kind])).toEqual(
      expect.arrayContaining([
        [agent.checkpoint.run_id, 'escalation'],
        [workflow.checkpoint.run_id, 'escalation'],
      ]),
    );
    expect(rows).toHaveLength(2);
    expect(listed.stderr).toContain(`moved 1 waiting run(s) from ${waitingRunsDir(dataDir)} into the history database`);
    expect(listed.stderr).toContain(`moved 1 waiting run(s) from ${waitingWorkflowsDir(dataDir)} into the history database`);
    expect(existsSync(agentFile) || existsSync(workflowFile)).toBe(false);
    expect(existsSync(`${agentFile}.migrated`) && existsSync(`${workflowFile}.migrated`)).toBe(true);

    // The app's host lists both, and does not close them as interrupted.
    const host = await openTestHost(dataDir, cleanups);
    const page = hostPage(host);
    const { interventions } = await page.ok('interventions.pending', {});
    expect(interventions.map((i) => i.run_id).sort()).toEqual([agent.checkpoint.run_id, workflow.checkpoint.run_id].sort());
    await host.close();
    expect(journalEvents(dataDir).filter((e) => e.type === 'run.finished')).toEqual([]);

    // Answered from the terminal: each resumes to its end.
    const agentAnswer = await cliWith(['answer', agent.checkpoint.run_id, 'approve', '--data-dir', dataDir]);
    expect(agentAnswer.stderr).toBe('');
    expect(agentAnswer.code).toBe(EXIT.ok);
    expect(readFileSync(`${agentWs.workspace}/shared.md`, 'utf8')).toBe('for everyone');
    const workflowAnswer = await cliWith(['answer', workflow.checkpoint.run_id, 'approve', '--data-dir', dataDir]);
    expect(workflowAnswer.stderr).toBe('');
    expect(workflowAnswer.code).toBe(EXIT.ok);
    expect(readFileSync(`${workflowWs.workspace}/shared.md`, 'utf8')).toBe('shared');
    const ends = journalEvents(dataDir).filter((e) => e.type === 'run.finished');
    expect(ends.map((e) => [e.run_id, e.type === 'run.finished' && e.status]).sort()).toEqual(
      [
        [agent.checkpoint.run_id, 'completed'],
        [workflow.checkpoint.run_id, 'completed'],
      ].sort(),
    );
    // Nothing waits any more, and the backups never come back as waiting runs.
    expect((await cliWith(['runs', 'waiting', '--data-dir', dataDir])).stdout).toBe('nothing waits for you\n');
    expect(existsSync(`${agentFile}.migrated`) && existsSync(`${workflowFile}.migrated`)).toBe(true);
  }, 90_000);
});
