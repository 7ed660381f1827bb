import type { AgentSpec } from '@shared/contracts/spec';
import type { HostedWorkflow } from '@shared/contracts/hosted-workflow';
import { expandHostedWorkflow } from '@shared/policy/expand-workflow';
import { SpecError } from '../spec/spec-errors';
import type { HostRegistry } from './host-registry';
import { RequestError } from './request-error';

/** The page's workflow expanded from this host's registry (see expandHostedWorkflow); throws the request's error. */
export function expandWorkflow(doc: HostedWorkflow, registry: HostRegistry): AgentSpec {
  const expanded = expandHostedWorkflow(doc, { servers: registry.servers(), workspaces: registry.workspaces(), overrides: registry.effects() });
  if (expanded.ok) return expanded.spec;
  if (expanded.kind === 'unregistered') throw new RequestError('not_found', expanded.message);
  throw new SpecError(`workflow ${doc.id} is not runnable: ${expanded.message}`);
}
