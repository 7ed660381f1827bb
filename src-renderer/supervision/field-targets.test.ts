import { describe, expect, it } from 'vitest';
import { fieldTarget } from './field-targets';

describe('validation issues point at the control that fixes them', () => {
  it('picks the most specific control and opens its group', () => {
    expect(fieldTarget('models.teacher')).toMatchObject({ id: 'cfg-models-teacher' });
    expect(fieldTarget('models.teacher.api_key')).toMatchObject({ group: 'models', id: 'cfg-models-teacher-api_key' });
    expect(fieldTarget('supervision.rules.tools.0')).toMatchObject({ group: 'rules', id: 'cfg-supervision-rules-tools' });
    expect(fieldTarget('supervision.safe_message')).toMatchObject({ group: 'handover', label: 'Handover › Safe message' });
    expect(fieldTarget('tool_effects.fs/write_file')).toMatchObject({ group: 'tools' });
    expect(fieldTarget('servers.1.env.TOKEN')).toMatchObject({ group: 'tools' });
  });

  it('never leaves an issue without a place to go', () => {
    expect(fieldTarget('something.new')).toMatchObject({ id: 'cfg-supervision-phase' });
  });
});
