import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { HostedWorkflowInput } from '@shared/contracts/hosted-workflow';
import type { ScriptEntry } from '@shared/contracts/script';
import { PDF_PACKAGE } from '@shared/policy/shipped-effects';
import { writeOnePagePdf } from '../../../test-support/made-pdf';
import { tempFolder } from '../../../test-support/temp-folder';
import { accept, thirdPartyHost } from '../../../test-support/third-party-host';

/**
 * The PDF MCP server (@modelcontextprotocol/server-pdf 2.0.4, an MCP App) over stdio (`--stdio`; its
 * default is Streamable HTTP), registered by package with the run's workspace as its folder, on a PDF
 * this test writes byte by byte (a page of text and one form field). Real host and server; student
 * and teacher are scripted (the model boundary).
 *
 * What it cannot do here: reading a page's text (`interact` get_text) needs the server's viewer, an
 * iframe app the host renders and that polls the server. Steward renders no MCP App views, so with
 * no viewer the server answers after 8 s "Viewer never connected"; these tests do not call it. What
 * it does without a viewer: list the PDFs, and open one (`display_pdf`), which parses the file with
 * PDF.js and lists its form fields. It misbehaves on a file that is not a PDF: "PDF opened".
 */

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()?.();
});

/** A folder of papers: an order form (a real PDF with one field) and notes.pdf, which is plain text. */
async function hostWithPapers() {
  const h = await thirdPartyHost(cleanups);
  const folder = tempFolder('steward-papers-', cleanups);
  const size = writeOnePagePdf(join(folder, 'order-form.pdf'), { text: 'Order form', field: { name: 'customer', label: 'Customer name' } });
  writeFileSync(join(folder, 'notes.pdf'), 'Not a PDF: a note saved with the wrong extension.\n');
  await h.page.ok('workspaces.register', { workspace: { id: 'papers', label: 'Papers', path: folder } });
  await h.page.ok('servers.register', { server: { id: 'pdf', label: 'PDF reader', package: PDF_PACKAGE, args: ['--stdio', '${workspace}'] } });
  return { ...h, folder, size };
}

const call = (tool: string, args: Record<string, unknown> = {}): ScriptEntry => ({ json: { decision_type: 'tool_call', tool_name: tool, arguments: args } });
const complete = (output: string): ScriptEntry => ({ json: { decision_type: 'complete', output } });

function papersAgent(student: ScriptEntry[], teacher: ScriptEntry[]): HostedWorkflowInput {
  return {
    format: 'steward/v1',
    kind: 'agent',
    id: 'read-papers',
    name: 'Read papers',
    instructions: 'Open the PDFs in ${workspace} and say what they ask for.',
    task: 'What does the order form ask for?',
    workspace: 'papers',
    servers: [{ id: 'pdf', server: 'pdf', tools: ['list_pdfs', 'display_pdf'] }],
    // Risk-gated: list_pdfs (a read) runs unreviewed; display_pdf may download any HTTPS URL, so the teacher sees it first.
    supervision: { phase: 3 },
    script: { student, teacher },
  };
}

describe('the PDF MCP server on a PDF the test made', () => {
  it('is listed with the effects a person expects and without its app-only tools', async () => {
    const h = await hostWithPapers();
    const tools = await h.inspect('pdf', 'papers');
    const effects = Object.fromEntries(tools.map((t) => [t.name, `${t.effect.effect} (${t.effect_source})`]));
    expect(effects).toEqual({
      list_pdfs: 'read (shipped)',
      display_pdf: 'external_communication (shipped)',
      interact: 'irreversible_write (shipped)',
    });
    // read_pdf_bytes, save_pdf, poll_pdf_commands and submit_* are for the server's viewer (_meta.ui.visibility ["app"]).
    expect(tools.map((t) => t.name)).not.toContain('read_pdf_bytes');
  });

  it('a supervised run lists the folder and opens the form: the server parsed the file and names its field', async () => {
    const h = await hostWithPapers();
    const form = join(h.folder, 'order-form.pdf');
    const run = await h.run(papersAgent([call('list_pdfs'), call('display_pdf', { url: form }), complete('The order form asks for the customer name.')], [accept('Opens a local file in the workspace.')]));
    expect(run.finished).toMatchObject({ status: 'completed', output: 'The order form asks for the customer name.' });
    const [listed, opened] = run.executions;
    expect(listed).toMatchObject({ tool: 'list_pdfs', ok: true, is_error: false, content: expect.stringContaining(`file://${form}`) });
    expect(opened).toMatchObject({ tool: 'display_pdf', ok: true, is_error: false });
    expect(opened?.content).toContain('PDF opened.');
    expect(opened?.content).toContain('customer "Customer name" [Tx]');
    // Only display_pdf went to the teacher.
    const reviews = run.events.flatMap((e) => (e.type === 'review.decided' ? [e.review] : []));
    expect(reviews.map((r) => r.required)).toEqual([false, true, false]);
  });

  it('a missing file and one outside its folder are refused in words, bad arguments never reach it, and a file that is not a PDF is "opened" (the server misbehaving)', async () => {
    const h = await hostWithPapers();
    const notes = join(h.folder, 'notes.pdf');
    const run = await h.run(
      papersAgent(
        [
          call('display_pdf', { url: join(h.folder, 'missing.pdf') }),
          call('display_pdf', { url: '/etc/hostname' }),
          // Breaks the tool's input schema (page is a number): the student is told and repairs it.
          call('display_pdf', { url: notes, page: 'first' }),
          call('display_pdf', { url: notes, page: 1 }),
          complete('Two files could not be opened.'),
        ],
        [accept('A local file.'), accept('Let the server decide.'), accept('A local file.')],
      ),
    );
    expect(run.finished.status).toBe('completed');
    const [missing, outside, notPdf] = run.executions;
    expect(missing).toMatchObject({ ok: true, is_error: true, content: `File not found: ${join(h.folder, 'missing.pdf')}` });
    expect(outside).toMatchObject({ ok: true, is_error: true, content: expect.stringContaining('Local file not in allowed list: /etc/hostname') });
    // The invalid arguments were refused by Steward's validation: only the repaired call ran.
    expect(run.executions).toHaveLength(3);
    expect(notPdf?.arguments).toEqual({ url: notes, page: 1 });
    const refused = run.events.flatMap((e) => (e.type === 'candidate.validated' && !e.validation.ok ? e.validation.issues : []));
    expect(refused.length).toBeGreaterThan(0);
    // Not a PDF, yet "PDF opened": the server's form probe swallows PDF.js's parse error. Nothing is listed from it.
    expect(notPdf).toMatchObject({ ok: true, is_error: false, content: expect.stringContaining('PDF opened.') });
    expect(notPdf?.content).not.toContain('Form fields');
  });
});
