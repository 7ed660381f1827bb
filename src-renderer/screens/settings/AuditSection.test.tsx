import { describe, expect, it } from 'vitest';
import { AUDIT_ACTIONS } from '@shared/contracts/audit';
import { AUDIT_ACTION_WORDS } from './AuditSection';

describe('the audit log’s actions', () => {
  it('read as words, not as the host’s method codes', () => {
    for (const action of AUDIT_ACTIONS) {
      const words = AUDIT_ACTION_WORDS[action];
      expect(words).not.toContain('.');
      expect(words).not.toContain(action);
      expect(words[0]).toBe(words[0]?.toUpperCase());
    }
    expect(AUDIT_ACTION_WORDS['workspaces.register']).toBe('Workspace folder added or changed');
  });
});
