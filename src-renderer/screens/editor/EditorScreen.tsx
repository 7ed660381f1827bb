import '@xyflow/react/dist/style.css';
import { useCallback, useEffect, useId, useMemo, useRef, useState, type DragEvent } from 'react';
import { Background, ControlButton, Controls, ReactFlow, ReactFlowProvider, applyNodeChanges, useReactFlow, type Connection, type EdgeChange, type NodeChange } from '@xyflow/react';
import type { NodeKind, WorkflowNode } from '@shared/workflow/document';
import { HostedWorkflowGraph } from '@shared/workflow/hosted-graph';
import { useHost } from '../../app/HostProvider';
import { navigate, routeHref } from '../../app/routing';
import { useHostRegistry } from '../../host/use-host-registry';
import { Spinner } from '../../components/Icons';
import { canConnect, edgeOfConnection, toFlowEdges, toFlowNodes, type StepEdge, type StepNode } from './flow-convert';
import { addNode, connect, moveNodes, removeElements, replaceNode, type Draft, type XY } from './graph-edit';
import { StartConnect } from './connect-context';
import type { PortRef } from './connect-targets';
import { ConnectPicker } from './ConnectPicker';
import { DEFAULT_SIZE } from './layered-layout';
import { freeSpot, type Box } from './placement';
import { AUTO_LAYOUT_KEYS, useAutoLayout } from './use-auto-layout';
import { commit, redo, startHistory, undo, type History } from './history';
import { Inspector } from './Inspector';
import { DRAG_TYPE, isNodeKind, Palette } from './Palette';
import { draftProblems, indexProblems } from './problems';
import { ProblemsList } from './ProblemsList';
import { FieldScope, UnparsedFieldsProvider, useUnparsedFields } from './unparsed-fields';
import { useHostCheck } from './use-host-check';
import { RunBanner } from './RunBanner';
import { RunForm, type RunTrace } from './RunForm';
import { NODE_TYPES } from './StepNode';
import { useFitUntilMoved } from './use-fit-until-moved';
import { useRunStates } from './use-run-states';
import { useServerTools } from './use-server-tools';
import { errorText, useStoredWorkflow, type Opened, type SaveOutcome } from './use-stored-workflow';
import { WorkflowPanel } from './WorkflowPanel';
import { DraftOfferBanner } from './DraftOfferBanner';
import { LeaveDialog } from './LeaveDialog';
import { useKeptDraft } from './use-kept-draft';
import { FIT_OPTIONS, fitLegibly } from './legible-fit';
import { workflowProviderProblem } from './run-readiness';
import { useLeaveGuard } from './use-leave-guard';

/** The graph editor for one of the user's workflows (`workflowId`), or a new one. */
/** `showRun`: a run of this workflow whose node states (and supervisor verdicts) the graph shows. */
export function EditorScreen({ workflowId, openRun = false, showRun }: { workflowId?: string; openRun?: boolean; showRun?: string }) {
  const { state, save, adopt } = useStoredWorkflow(workflowId);
  if (state.status !== 'ready')
    return (
      <div className="page editor-load">
        <p className={state.status === 'error' ? 'error' : 'muted'} role={state.status === 'error' ? 'alert' : undefined} data-testid="editor-load">
          {state.status === 'error' ? state.message : 'Loading the workflow…'}
        </p>
        <a className="button" href={routeHref({ name: 'workflows' })}>
          Back to workflows
        </a>
      </div>
    );
  return (
    <ReactFlowProvider key={state.generation}>
      <UnparsedFieldsProvider>
        <Editor initial={state.opened} save={save} adopt={adopt} openRun={openRun} showRun={showRun} />
      </UnparsedFieldsProvider>
    </ReactFlowProvider>
  );
}

const NONE = { servers: [], workspaces: [] };
const isTyping = (t: EventTarget | null) => t instanceof HTMLElement && (t.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(t.tagName));

function Editor({ initial, save, adopt, openRun, showRun }: { initial: Opened; save: (doc: HostedWorkflowGraph, from: Opened, force?: boolean) => Promise<SaveOutcome>; adopt: (id: string) => void; openRun: boolean; showRun?: string }) {
  const { client, connection } = useHost();
  const registry = useHostRegistry();
  const flow = useReactFlow();
  const canvasRef = useRef<HTMLDivElement>(null);
  const onMoveStart = useFitUntilMoved(canvasRef, flow);
  // Every fit (the canvas's button, auto-layout, a run) stops at a zoom where nodes stay legible.
  const fit = useCallback(() => void fitLegibly(flow, canvasRef.current, 200), [flow]);
  const uid = useId();
  // Where the focus goes back to once the Run form or the run banner is gone (never to the page's body).
  const runButton = useRef<HTMLButtonElement>(null);
  const focusRun = () => requestAnimationFrame(() => runButton.current?.focus());
  const [opened, setOpened] = useState(initial);
  const [history, setHistory] = useState<History<Draft>>(() => startHistory(initial.doc));
  const draft = history.present;
  const change = useCallback((next: Draft, group?: string) => setHistory((h) => commit(h, next, group)), []);
  const tools = useServerTools(draft.workspace);

  const local = useMemo(() => {
    const out = draftProblems(draft, registry.state ?? NONE, tools.byServer);
    // Until the host's registry is in, its servers and workspaces are not known to be missing.
    return registry.state ? out : { ...out, problems: out.problems.filter((p) => !p.code.startsWith('unregistered_')) };
  }, [draft, registry.state, tools.byServer]);
  // The host's check of the draft (steward validate's), and the fields whose typed text the draft does not hold yet.
  const checked = useHostCheck(draft, local);
  const unparsed = useUnparsedFields();
  const nodeIds = useMemo(() => draft.nodes.map((n) => n.id), [draft.nodes]);
  const pending = useMemo(() => unparsed.problems(nodeIds), [unparsed, nodeIds]);
  // The typed texts themselves: kept with the draft on the host, so a reload brings them back as typed.
  const typed = useMemo(() => unparsed.texts(nodeIds), [unparsed, nodeIds]);
  const problems = useMemo(() => [...pending, ...checked.problems], [pending, checked.problems]);
  const valid = checked.valid && pending.length === 0;
  // The host's problems (or the page's, while it checks) keep the workflow from running: say why.
  const runBlocked =
    connection !== 'open'
      ? 'It cannot run while the page is not connected to the Steward host.'
      : problems.length > 0
        ? `It cannot run while it has ${problems.length === 1 ? 'a problem' : `${problems.length} problems`}: fix ${problems.length === 1 ? 'it' : 'them'} first (listed under the canvas).`
        : undefined;
  const index = useMemo(() => indexProblems(problems), [problems]);

  const [runId, setRunId] = useState<string | undefined>(showRun);
  // Opened on another run of this workflow (the run view's "Open in editor"): show that one.
  const [shownRun, setShownRun] = useState(showRun);
  if (showRun !== shownRun) {
    setShownRun(showRun);
    if (showRun !== undefined) setRunId(showRun);
  }
  const [runOpen, setRunOpen] = useState(openRun);
  const run = useRunStates(runId);
  // A run opened from the run view: every node in view once its states are drawn.
  const hasStates = Object.keys(run.states).length > 0;
  useEffect(() => {
    if (shownRun !== undefined && hasStates) requestAnimationFrame(fit);
  }, [shownRun, hasStates, fit]);

  // React Flow's nodes: rebuilt from the draft; selection and measured sizes carried over.
  const [nodes, setNodes] = useState<StepNode[]>(() => toFlowNodes(initial.doc, index));
  const carry = useRef<{ rename?: [string, string]; select?: string }>({});
  useEffect(() => {
    // Taken only by the draft that holds the node: an effect of an earlier render, flushed between the
    // palette's key press and the new draft's render (seen on a loaded CI machine), must not use it up.
    const ids = new Set(draft.nodes.map((n) => n.id));
    const rename = carry.current.rename && ids.has(carry.current.rename[1]) ? carry.current.rename : undefined;
    const select = carry.current.select !== undefined && ids.has(carry.current.select) ? carry.current.select : undefined;
    if (rename) delete carry.current.rename;
    if (select !== undefined) delete carry.current.select;
    setNodes((prev) => {
      const byId = new Map(prev.map((n) => [n.id, n]));
      return toFlowNodes(draft, index, runId ? run.states : {}).map((n) => {
        const old = byId.get(n.id) ?? (rename && rename[1] === n.id ? byId.get(rename[0]) : undefined);
        const selected = select !== undefined ? n.id === select : (old?.selected ?? false);
        const sv = run.supervision.byNode[n.id];
        const data = runId && n.data.run ? { ...n.data, runHref: routeHref({ name: 'run', runId, tab: 'nodes', node: n.id }), ...(sv ? { supervision: sv } : {}) } : n.data;
        return { ...n, data, selected, ...(old ? { measured: old.measured } : {}) };
      });
    });
  }, [draft, index, runId, run.states, run.supervision]);
  const selected = nodes.filter((n) => n.selected);
  const selectedNode = selected.length === 1 ? draft.nodes.find((n) => n.id === selected[0]?.id) : undefined;

  const [selectedEdges, setSelectedEdges] = useState<ReadonlySet<string>>(new Set());
  const edges = useMemo(() => toFlowEdges(draft, index).map((e) => ({ ...e, selected: selectedEdges.has(e.id) })), [draft, index, selectedEdges]);

  const onNodesChange = useCallback((changes: NodeChange<StepNode>[]) => setNodes((nds) => applyNodeChanges(changes, nds)), []);
  const onEdgesChange = useCallback((changes: EdgeChange[]) => {
    setSelectedEdges((prev) => {
      const next = new Set(prev);
      for (const c of changes) {
        if (c.type !== 'select') continue;
        if (c.selected) next.add(c.id);
        else next.delete(c.id);
      }
      return next;
    });
  }, []);
  const onDelete = useCallback(
    ({ nodes: gone, edges: cut }: { nodes: StepNode[]; edges: StepEdge[] }) =>
      change(removeElements(draft, gone.map((n) => n.id), cut.flatMap((e) => e.data?.index ?? []))),
    [change, draft],
  );
  const onConnect = useCallback((c: Connection) => {
    const edge = edgeOfConnection(c);
    if (edge) change(connect(draft, edge));
  }, [change, draft]);
  const isValidConnection = useCallback((c: Connection | StepEdge) => {
    const edge = edgeOfConnection(c);
    return edge !== null && canConnect(draft, edge);
  }, [draft]);

  // Keyboard connect: the output port chosen (Enter on it), whose picker of inputs is open.
  const [connecting, setConnecting] = useState<PortRef>();
  const connectTo = (to: PortRef) => connecting && onConnect({ source: connecting.node, sourceHandle: connecting.port, target: to.node, targetHandle: to.port });
  const layout = useAutoLayout(draft, nodes, fit, change);

  /** A new node goes at `at` or the nearest spot clear of every node (their measured boxes), in view. */
  const add = (kind: NodeKind, at: XY) => {
    const rect = canvasRef.current?.getBoundingClientRect();
    const corner = rect && flow.screenToFlowPosition({ x: rect.left, y: rect.top });
    const far = rect && flow.screenToFlowPosition({ x: rect.right, y: rect.bottom });
    const view = corner && far ? { x: corner.x, y: corner.y, w: far.x - corner.x, h: far.y - corner.y } : undefined;
    const measured = new Map(nodes.map((n) => [n.id, n.measured]));
    const boxes: Box[] = draft.nodes.flatMap((n) => (n.position ? [{ ...n.position, w: measured.get(n.id)?.width ?? DEFAULT_SIZE.w, h: measured.get(n.id)?.height ?? DEFAULT_SIZE.h }] : []));
    const out = addNode(draft, kind, freeSpot(boxes, at, DEFAULT_SIZE, view));
    carry.current.select = out.id;
    change(out.draft);
  };
  /** From the palette by click or key: near the middle of the view. */
  const addInView = (kind: NodeKind) => {
    const rect = canvasRef.current?.getBoundingClientRect();
    const center = rect ? flow.screenToFlowPosition({ x: rect.left + rect.width / 3, y: rect.top + rect.height / 4 }) : { x: 0, y: 0 };
    add(kind, { x: center.x - 100, y: center.y });
  };
  const onDrop = (e: DragEvent) => {
    const kind = e.dataTransfer.getData(DRAG_TYPE);
    if (!isNodeKind(kind)) return;
    e.preventDefault();
    add(kind, flow.screenToFlowPosition({ x: e.clientX, y: e.clientY }));
  };

  const editSelected = (next: WorkflowNode, group?: string) => {
    if (!selectedNode) return;
    if (next.id !== selectedNode.id) carry.current.rename = [selectedNode.id, next.id];
    change(replaceNode(draft, selectedNode.id, next), group);
  };

  const dirty = useMemo(() => JSON.stringify(draft) !== JSON.stringify(opened.doc), [draft, opened.doc]);
  // Text typed into a JSON field that does not parse is unsaved work too, though the document has not changed.
  const unsaved = dirty || typed.length > 0;
  const [saving, setSaving] = useState(false);
  const [notice, setNotice] = useState<{ text: string; conflict?: boolean; ok?: boolean; warn?: boolean }>();
  const doSave = useCallback(
    async (force = false): Promise<boolean> => {
      if (pending.length > 0) {
        setNotice({ text: 'Not saved: a field holds text that is not JSON yet, so the workflow does not have it (see the list below the canvas). Fix the text, or undo.' });
        return false;
      }
      const parsed = HostedWorkflowGraph.safeParse(draft);
      if (!parsed.success) {
        setNotice({ text: 'Not saved: fix the problems marked on the nodes first (see the list below the canvas).' });
        return false;
      }
      setSaving(true);
      const out = await save(parsed.data, opened, force);
      setSaving(false);
      if (!out.ok) {
        setNotice({ text: out.message, conflict: out.conflict });
        return false;
      }
      setOpened({ ...out.opened, doc: draft });
      // The route follows the save at once, before the check below: a person who leaves the editor
      // while that check runs is not brought back to it when it answers.
      if (out.opened.storedId !== opened.storedId && out.opened.storedId !== undefined) {
        adopt(out.opened.storedId);
        navigate({ name: 'workflow-edit', workflowId: out.opened.storedId, run: false });
      }
      // Saved is not runnable: the host's problems with what was saved are said with it.
      const left = checked.state === 'checked' ? checked.problems.length : await client.request('workflows.validate', { workflow: parsed.data }).then((r) => r.problems.length, () => checked.problems.length);
      setNotice(left === 0 ? { text: 'Saved.', ok: true } : { text: `Saved with ${left} problem${left === 1 ? '' : 's'}: it cannot run until ${left === 1 ? 'it is' : 'they are'} fixed (see the list below the canvas).`, warn: true });
      return true;
    },
    [adopt, checked.problems.length, checked.state, client, draft, opened, pending.length, save],
  );

  // Unsaved work is kept on the host and offered back on return; leaving it asks first (issue 22).
  const kept = useKeptDraft({ initial, opened, draft, dirty, unparsed: typed });
  const saveAndForget = async () => {
    const saved = await doSave();
    // The editor closes next, before a render would forget the draft: forget it now.
    if (saved) await kept.forget();
    return saved;
  };
  const leave = useLeaveGuard({ dirty: unsaved, storedId: opened.storedId, draftId: draft.id, save: saveAndForget, discard: kept.forget });
  const restore = () => {
    const offer = kept.offer;
    if (!offer) return;
    change(offer.doc);
    // The JSON fields' typed texts come back as typed, not as the fields' last valid values.
    unparsed.restore(offer.unparsed);
    // Someone saved since the draft was started: saving it is then a conflict the person decides.
    if (offer.savedSince && offer.baseUpdatedAt !== undefined) setOpened((o) => ({ ...o, updatedAt: offer.baseUpdatedAt }));
    kept.settle(true);
  };

  const startRun = async (inputs: Record<string, unknown>, trace?: RunTrace): Promise<string | undefined> => {
    if ((dirty || opened.storedId === undefined) && !(await doSave())) return 'The workflow could not be saved, so it was not run (see the message above the canvas).';
    try {
      const r = await client.request('workflows.run', { id: draft.id, inputs, ...trace });
      setRunId(r.run_id);
      setRunOpen(false);
      focusRun();
      // Every node's state in view while it runs.
      requestAnimationFrame(fit);
      return undefined;
    } catch (err) {
      return `Not started: ${errorText(err)}`;
    }
  };

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (!(e.ctrlKey || e.metaKey)) return;
      const key = e.key.toLowerCase();
      if (key === 's') {
        e.preventDefault();
        void doSave();
      } else if ((key === 'z' || key === 'y') && !isTyping(e.target)) {
        e.preventDefault();
        setHistory((h) => (key === 'y' || e.shiftKey ? redo(h) : undo(h)));
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [doSave]);

  const inputFields = draft.nodes.flatMap((n) => (n.kind === 'input' ? n.fields : []));
  const focusNode = (id: string) => {
    setNodes((nds) => nds.map((n) => ({ ...n, selected: n.id === id })));
    const n = nodes.find((x) => x.id === id);
    if (n) void flow.setCenter(n.position.x + 100, n.position.y + 60, { duration: 200, zoom: flow.getZoom() });
  };

  return (
    <div className="page page--editor" data-testid="workflow-editor" data-workflow-id={draft.id}>
      <header className="wf-editor__head">
        <a href={routeHref({ name: 'workflows' })} className="wf-editor__back">
          ← Workflows
        </a>
        <h1 className="wf-editor__title">{draft.name || draft.id}</h1>
        {unsaved ? (
          <span className="chip chip--escalated" data-testid="unsaved-indicator" data-kept={kept.keptAt !== undefined} title={kept.keptAt ? 'Kept on this host as a draft: a reload or a restart offers it back.' : undefined}>
            Unsaved changes{kept.keptAt ? ' · draft kept' : ''}
          </span>
        ) : (
          <span className="muted" data-testid="saved-indicator">
            {opened.storedId ? 'Saved' : 'Not saved yet'}
          </span>
        )}
        <div className="wf-editor__actions">
          <button type="button" className="button button--small" onClick={layout} disabled={draft.nodes.length === 0} data-testid="auto-layout" title={`Lay the graph out left to right (${AUTO_LAYOUT_KEYS})`} aria-keyshortcuts="Shift+Alt+L">
            Auto-layout
          </button>
          <button type="button" className="button button--small" onClick={() => setHistory(undo)} disabled={history.past.length === 0} data-testid="undo" title="Undo (Ctrl+Z)">
            Undo
          </button>
          <button type="button" className="button button--small" onClick={() => setHistory(redo)} disabled={history.future.length === 0} data-testid="redo" title="Redo (Ctrl+Shift+Z)">
            Redo
          </button>
          <button type="button" className="button" onClick={() => void doSave()} disabled={saving || connection !== 'open'} data-testid="save-workflow" title="Save (Ctrl+S)">
            {saving ? <Spinner /> : null}
            Save
          </button>
          <button
            ref={runButton}
            type="button"
            className="button button--primary"
            // Focusable while it cannot run, so a keyboard or screen reader user meets the reason too.
            aria-disabled={runBlocked !== undefined}
            aria-describedby={runBlocked !== undefined ? `${uid}-run-why` : undefined}
            title={runBlocked}
            onClick={() => (runBlocked !== undefined ? setNotice({ text: runBlocked }) : setRunOpen(true))}
            data-testid="run-workflow"
          >
            <span aria-hidden="true">▶</span> Run
          </button>
          {runBlocked !== undefined && (
            <span id={`${uid}-run-why`} className="visually-hidden" data-testid="run-blocked-reason">
              {runBlocked}
            </span>
          )}
        </div>
      </header>
      {notice && (
        <div className={notice.ok ? 'wf-notice wf-notice--ok' : notice.warn ? 'wf-notice wf-notice--warn' : 'wf-notice error'} role={notice.ok || notice.warn ? 'status' : 'alert'} data-testid="editor-notice">
          {notice.text}
          {notice.conflict && (
            <button type="button" className="button button--small button--danger" onClick={() => void doSave(true)} data-testid="save-overwrite">
              Overwrite with mine
            </button>
          )}
          <button type="button" className="button button--small" aria-label="Dismiss" onClick={() => setNotice(undefined)}>
            ✕
          </button>
        </div>
      )}
      {kept.offer && <DraftOfferBanner offer={kept.offer} onRestore={restore} onDiscard={() => kept.settle(false)} />}
      {runId && (
        <RunBanner
          runId={runId}
          finished={run.finished}
          onDismiss={() => {
            setRunId(undefined);
            focusRun();
          }}
        />
      )}
      <div className="wf-editor">
        <Palette onAdd={addInView} />
        <div className="wf-editor__canvas" ref={canvasRef} data-testid="editor-canvas" onDragOver={(e) => e.preventDefault()} onDrop={onDrop}>
          <StartConnect.Provider value={setConnecting}>
            <ReactFlow<StepNode, StepEdge>
              nodes={nodes}
              edges={edges}
              nodeTypes={NODE_TYPES}
              onNodesChange={onNodesChange}
              onEdgesChange={onEdgesChange}
              onDelete={onDelete}
              onConnect={onConnect}
              isValidConnection={isValidConnection}
              onNodeDragStop={(_e, _n, dragged) => change(moveNodes(draft, Object.fromEntries(dragged.map((n) => [n.id, n.position]))))}
              onNodeClick={(_e, n) => {
                if (runId && run.states[n.id]) navigate({ name: 'run', runId, tab: 'nodes', node: n.id });
              }}
              deleteKeyCode={['Backspace', 'Delete']}
              fitView
              fitViewOptions={FIT_OPTIONS}
              // Below React Flow's 0.5, so a workflow of a dozen steps still fits the canvas when opened.
              minZoom={0.2}
              onMoveStart={onMoveStart}
              proOptions={{ hideAttribution: true }}
            >
              <Background />
              <Controls showFitView={false}>
                <ControlButton className="react-flow__controls-fitview" onClick={fit} title="Fit view (as legibly as the canvas allows)" aria-label="Fit view">
                  <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 30" aria-hidden="true">
                    <path d="M3.692 4.63c0-.53.4-.938.939-.938h5.215V0H4.708C2.13 0 0 2.054 0 4.63v5.216h3.692V4.631zM27.354 0h-5.2v3.692h5.17c.53 0 .984.4.984.939v5.215H32V4.631A4.624 4.624 0 0027.354 0zm.954 24.83c0 .532-.4.94-.939.94h-5.215v3.768h5.215c2.577 0 4.631-2.13 4.631-4.707v-5.139h-3.692v5.139zm-23.677.94c-.531 0-.939-.4-.939-.94v-5.138H0v5.139c0 2.577 2.13 4.707 4.708 4.707h5.138V25.77H4.631z" />
                  </svg>
                </ControlButton>
              </Controls>
            </ReactFlow>
          </StartConnect.Provider>
          {connecting && <ConnectPicker draft={draft} from={connecting} onConnect={connectTo} onClose={() => setConnecting(undefined)} />}
        </div>
        {selectedNode ? (
          // Keyed by the restores of typed texts: the fields shown read them again.
          <FieldScope.Provider key={unparsed.generation} value={selectedNode.id}>
            <Inspector node={selectedNode} draft={draft} tools={tools} problems={problems.flatMap((p) => (p.node === selectedNode.id ? [p.port !== undefined ? `${p.port}: ${p.message}` : p.message] : []))} onChange={editSelected} onRemove={() => change(removeElements(draft, [selectedNode.id], []))} saved={opened.storedId !== undefined && opened.doc.nodes.some((n) => n.id === selectedNode.id)} />
          </FieldScope.Provider>
        ) : (
          <WorkflowPanel key={unparsed.generation} draft={draft} servers={registry.state?.servers ?? []} workspaces={registry.state?.workspaces ?? []} problems={index.workflow} onChange={change} saved={opened.storedId !== undefined} />
        )}
      </div>
      <ProblemsList problems={problems} onSelect={focusNode} state={pending.length > 0 ? 'checked' : checked.state} />
      {leave.asking !== undefined && <LeaveDialog name={draft.name || draft.id} canSave={valid && connection === 'open'} onChoose={(choice) => void leave.choose(choice)} />}
      {runOpen && (
        <RunForm
          fields={inputFields}
          start={startRun}
          providerProblem={(providers) => workflowProviderProblem(draft, providers)}
          // Opened by a Run link (the workflows list) on a workflow with problems: it says so, and does not start.
          blockedBy={runBlocked}
          close={() => {
            setRunOpen(false);
            focusRun();
          }}
        />
      )}
    </div>
  );
}
