import type { ProfileKind } from '@shared/contracts/profiles';
import type { ProfileChoice, ProfileRow } from '../../db/db';
import { latestOfEach, profileLabel } from '../../db/profiles';

export interface ProfileOption {
  value: string;
  label: string;
  row: ProfileRow;
}

const keyOf = (c: ProfileChoice) => `${c.id}@${c.version}`;

/** Every profile of a kind at its newest version, plus the chosen version when it is an older one. */
export function profileOptions(rows: readonly ProfileRow[], kind: ProfileKind, chosen: ProfileChoice | undefined, describe?: (row: ProfileRow) => string): ProfileOption[] {
  const ofKind = rows.filter((r) => r.kind === kind);
  const latest = latestOfEach(ofKind);
  const suffix = (row: ProfileRow) => {
    const text = describe?.(row);
    return text ? ` — ${text}` : '';
  };
  const options = latest.map((row) => ({ value: keyOf(row), label: `${profileLabel(row)}${suffix(row)}`, row }));
  if (chosen && !options.some((o) => o.value === keyOf(chosen))) {
    const row = ofKind.find((r) => r.id === chosen.id && r.version === chosen.version);
    const newest = latest.find((r) => r.id === chosen.id);
    if (row) options.push({ value: keyOf(row), label: `${profileLabel(row)}${newest ? ` (v${newest.version} is newer)` : ''}${suffix(row)}`, row });
  }
  return options;
}

interface ProfileSelectProps {
  id: string;
  kind: ProfileKind;
  rows: readonly ProfileRow[];
  chosen: ProfileChoice | undefined;
  onChoose: (choice: ProfileChoice) => void;
  /** Set while the chosen profile has unsaved edits, e.g. "edited · saves as v2". */
  pending?: string;
  describe?: (row: ProfileRow) => string;
  disabled?: boolean;
}

/** The select itself, its pending-edit chip and the chosen profile's description (no label). */
export function ProfileSelectControl({ id, kind, rows, chosen, onChoose, pending, describe, disabled }: ProfileSelectProps) {
  const options = profileOptions(rows, kind, chosen, describe);
  const current = options.find((o) => chosen && o.value === keyOf(chosen));
  return (
    <>
      <div className="profile-select">
        <select
          id={id}
          className="select"
          value={current?.value ?? ''}
          disabled={disabled}
          data-testid={`profile-select-${kind}`}
          onChange={(e) => {
            const option = options.find((o) => o.value === e.target.value);
            if (option) onChoose({ id: option.row.id, version: option.row.version });
          }}
        >
          {!current && <option value="">Choose a profile…</option>}
          {options.map((o) => (
            <option key={o.value} value={o.value}>
              {o.label}
            </option>
          ))}
        </select>
        {pending && (
          <span className="chip chip--accent" data-testid={`profile-pending-${kind}`}>
            {pending}
          </span>
        )}
      </div>
      {current?.row.description && <p className="form-row__hint">{current.row.description}</p>}
    </>
  );
}

/** A profile selector row: human name and immutable version. */
export function ProfileSelect(props: ProfileSelectProps & { label: string }) {
  return (
    <div className="form-row">
      <label className="form-row__label" htmlFor={props.id}>
        {props.label}
      </label>
      <div className="form-row__control">
        <ProfileSelectControl {...props} />
      </div>
    </div>
  );
}
