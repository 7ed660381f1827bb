import type { WorkflowNode } from '@shared/workflow/document';
import { uniqueId } from './graph-edit';

/**
 * An Id follows the Name typed for it until the person types an Id of their own (issue 22): "Read
 * my notes" makes `read-my-notes`. "Until" needs no memory: an Id still equal to what the old
 * Name made (or that with a `-2` a clash added) is the editor's, any other is the person's.
 */

/** The Id a name makes: lowercase letters, digits and -, at most 64; '' when nothing is left. */
export function slugOf(name: string): string {
  return name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+/, '')
    .slice(0, 64)
    .replace(/-+$/, '');
}

/** The Id is still the one `name` made (`fallback` for an empty name, as a new node's is its kind). */
export function idFollows(id: string, name: string, fallback: string): boolean {
  const base = slugOf(name) || fallback;
  return id === base || (id.startsWith(`${base}-`) && /^\d+$/.test(id.slice(base.length + 1)));
}

/** A node's name as the person sees it: its label, or an agent's name. */
export function nodeName(node: WorkflowNode): string {
  return node.label ?? (node.kind === 'agent' ? node.name : undefined) ?? '';
}

/**
 * `next` (the node with its name edited) with its Id following the new name, unique among
 * `taken`, when the Id still follows the old one. A node already saved keeps its Id: runs,
 * supervisor settings and other people's copies know it by that.
 */
export function withFollowingId(node: WorkflowNode, next: WorkflowNode, taken: Iterable<string>, saved: boolean): WorkflowNode {
  if (saved || !idFollows(node.id, nodeName(node), node.kind)) return next;
  const others = [...taken].filter((t) => t !== node.id);
  return { ...next, id: uniqueId(slugOf(nodeName(next)) || next.kind, others) };
}

/** The id a never-saved workflow's name gives it while its id still follows the name. */
export function workflowIdFor(id: string, oldName: string, newName: string): string {
  return idFollows(id, oldName, 'my-workflow') ? slugOf(newName) || 'my-workflow' : id;
}
