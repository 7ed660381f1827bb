import 'fake-indexeddb/auto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HostedWorkflow } from '@shared/contracts/hosted-workflow';
import { HOST_METHODS } from '@shared/contracts/host-api';
import { StewardDb } from './db';
import { workflowRow } from './seed-demo';
import { scsSettingsOf, setScsSettings } from './workflow-scs';
import { runStartParams } from '../supervision/run-overrides';
import scsExample from '../../resources/examples/scs-summary.json';

/** The shipped SCS demo ("Phase-gated summary (SCS)"), as the host's demo workspace sends it (servers and workspace by id). */
const scsDemo = () => {
  const { servers, workspace: _path, ...rest } = scsExample;
  return HostedWorkflow.parse({ ...rest, workspace: 'demo-scs-summary', servers: servers.map((s) => ({ id: s.id, server: 'filesystem', tools: s.tools })) });
};
const NO_PROFILES = { resolved: {} };

let name: string;
let db: StewardDb;
beforeEach(async () => {
  name = `steward-scs-test-${Math.random().toString(36).slice(2)}`;
  db = new StewardDb(name);
  await db.open();
});
afterEach(async () => {
  await db.delete();
});

describe('SCS settings in the workflow document', () => {
  it('a mode chosen in the app is stored in the workflow and is what the next run.start sends', async () => {
    await db.workflows.add(workflowRow(scsDemo(), 'demo'));
    expect(scsSettingsOf((await db.workflows.get('scs-summary'))!.doc)).toMatchObject({ mode: 'on', monitor_every: 6 });

    await setScsSettings(db, 'scs-summary', { mode: 'off' });

    // Another connection to the same IndexedDB database (a reload) reads the change back.
    const reopened = new StewardDb(name);
    const row = await reopened.workflows.get('scs-summary');
    reopened.close();
    expect(row?.doc.scs).toMatchObject({ mode: 'off', monitor_every: 6 });
    const params = HOST_METHODS['run.start'].params.parse(runStartParams(row!, NO_PROFILES));
    expect(params.workflow.scs.mode).toBe('off');
    // Nothing else of the document changed: the replay script and the other SCS settings stay.
    expect({ ...params.workflow, scs: undefined }).toEqual({ ...scsDemo(), scs: undefined });
    expect(params.workflow.scs).toEqual({ ...scsDemo().scs, mode: 'off' });
  });

  it('a document stored before SCS existed reads as off, and gains full settings on its first change', async () => {
    const legacy = workflowRow(scsDemo(), 'demo');
    const { scs: _scs, ...docWithoutScs } = legacy.doc;
    await db.workflows.add({ ...legacy, doc: docWithoutScs as HostedWorkflow, supervision_enabled: false });
    const before = (await db.workflows.get('scs-summary'))!;
    expect(scsSettingsOf(before.doc).mode).toBe('off');
    expect(HOST_METHODS['run.start'].params.parse(runStartParams(before, NO_PROFILES)).workflow.scs.mode).toBe('off');

    await setScsSettings(db, 'scs-summary', { mode: 'auto', model: 'teacher' });
    const after = (await db.workflows.get('scs-summary'))!;
    expect(after.doc.scs).toEqual({ mode: 'auto', model: 'teacher', monitor_every: 4, max_committee_retries: 2, max_replans: 2, max_extensions: 2, extension_rounds: 4, budget_warning: 2, loop_guard: 2, auto_long_budget: 20, max_phases: 5, transcript_budget: 4000, file_batch: 5, alternatives: 1 });
    // The row's own settings are not the document's: the supervision switch stays as it was.
    expect(after.supervision_enabled).toBe(false);
  });

  it('a setting the schema refuses is not stored, and the error names the field', async () => {
    await db.workflows.add(workflowRow(scsDemo(), 'demo'));
    await expect(setScsSettings(db, 'scs-summary', { monitor_every: 0 })).rejects.toThrow(/monitor_every/);
    await expect(setScsSettings(db, 'no-such-workflow', { mode: 'on' })).rejects.toThrow(/no-such-workflow/);
    expect((await db.workflows.get('scs-summary'))?.doc.scs).toEqual(scsDemo().scs);
  });
});
