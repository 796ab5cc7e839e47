import type { SelectHTMLAttributes } from 'react';
import { EXPIRY_CHOICES } from './expiry.ts';

/** "Expires after" with the same choices wherever a credential is made (tokens, share links). */
export function ExpiryField(props: SelectHTMLAttributes<HTMLSelectElement>) {
  return (
    <label className="field">
      Expires after
      <select {...props}>
        {EXPIRY_CHOICES.map((c) => (
          <option key={c.days} value={c.days}>
            {c.label}
          </option>
        ))}
      </select>
    </label>
  );
}
