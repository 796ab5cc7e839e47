import { MAX_EVENT_NAME_LENGTH, textProblem } from '@kneeboard/contracts';

/**
 * A tool's request name as the API takes it: the tool's own text, cut to MAX_EVENT_NAME_LENGTH
 * (a long URL ends in `…`, never inside a surrogate pair), and '' — no name — where it holds
 * what no label may (control characters…): one odd request must not refuse a whole import.
 */
export function requestName(raw: string): string {
  let name = raw;
  if (name.length > MAX_EVENT_NAME_LENGTH) {
    let cut = MAX_EVENT_NAME_LENGTH - 1;
    const last = name.charCodeAt(cut - 1);
    if (last >= 0xd800 && last <= 0xdbff) cut -= 1;
    name = `${name.slice(0, cut)}…`;
  }
  return textProblem(name) === null ? name : '';
}

/**
 * A JSON string's content given as bytes [start, end) (without its quotes), as a request name.
 * Requests of one test repeat a few names over and over: the last few byte strings and their
 * names are kept, so a line costs a byte compare, not a string.
 */
export class NameFromBytes {
  private readonly seen: Array<{ bytes: Uint8Array; name: string }> = [];

  read(b: Uint8Array, start: number, end: number): string {
    const length = end - start;
    for (const s of this.seen) {
      if (s.bytes.length !== length) continue;
      let same = true;
      for (let i = 0; i < length; i++) {
        if (s.bytes[i] !== b[start + i]) {
          same = false;
          break;
        }
      }
      if (same) return s.name;
    }
    const text = Buffer.from(b.buffer, b.byteOffset + start, length).toString('utf8');
    let name: string;
    try {
      name = requestName(text.includes('\\') ? (JSON.parse(`"${text}"`) as string) : text);
    } catch {
      name = '';
    }
    // A handful: mixes have a few names; a file naming every request differently just decodes each.
    if (this.seen.length >= 16) this.seen.shift();
    this.seen.push({ bytes: b.slice(start, end), name });
    return name;
  }
}

/** The end of the JSON string that starts at `from` (the byte after its opening quote): its closing quote, or -1. */
export function jsonStringEnd(b: Uint8Array, from: number, end: number): number {
  for (let i = from; i < end; i++) {
    const c = b[i];
    if (c === 92 /* \ */) i++;
    else if (c === 34 /* " */) return i;
  }
  return -1;
}
