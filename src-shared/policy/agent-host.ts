import { checkModelUrl, isLoopbackHostname } from '../contracts/model-url';
import { isHostAllowed, type PrivacyCheck, type PrivacyPolicy } from './privacy';

/**
 * A remote agent's address under the workspace privacy policy (issue 29: an A2A judge's host is
 * under the policy like a model host): this machine is always allowed, another host only when the
 * policy lists it, and an address that is not a plain http(s) URL is never contacted. `who` names
 * the agent in the refusal ("the A2A judge “Reviewer”").
 */
export function checkAgentUrl(url: string, policy: PrivacyPolicy, who: string): PrivacyCheck {
  const check = checkModelUrl(url);
  if (!check.ok) return { ok: false, message: `${who} is not contacted: its address ${check.problem}` };
  if (isLoopbackHostname(check.parts.hostname)) return { ok: true };
  const host = check.parts.host;
  if (isHostAllowed(policy, host)) return { ok: true };
  return {
    ok: false,
    message: `${who} would send this run's data to ${host}, which the workspace privacy policy does not allow (local only${policy.allowed_hosts.length ? `, plus ${policy.allowed_hosts.join(', ')}` : ''}); nothing was sent. Allow that host in the workspace settings, or pick a judge on this machine`,
  };
}
