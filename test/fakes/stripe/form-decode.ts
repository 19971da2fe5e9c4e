/**
 * Stripe's request encoding (API reference, "Request encoding"): form-encoded, nested objects
 * and arrays as bracket keys (`metadata[payreq_request]=…`, `line_items[0][price_data][currency]=eur`,
 * `expand[]=latest_charge` or `expand[0]=…`), in the body of a POST and the query of a GET.
 */
export type FormValue = string | FormValue[] | { [key: string]: FormValue };
export type FormObject = { [key: string]: FormValue };

/** A key split into its path: `a[b][0][]` → ['a', 'b', '0', '']. Undefined when malformed. */
function pathOf(key: string): string[] | undefined {
  const m = /^([^[\]]+)((?:\[[^[\]]*\])*)$/.exec(key);
  if (!m) return undefined;
  const parts = [m[1] as string];
  for (const seg of (m[2] ?? '').matchAll(/\[([^[\]]*)\]/g)) parts.push(seg[1] ?? '');
  return parts;
}

/** Decodes a form body or a query string; a key that is not Stripe's shape is a parameter error. */
export function decodeForm(text: string): FormObject {
  const root: FormObject = {};
  for (const [key, value] of new URLSearchParams(text)) {
    const path = pathOf(key);
    if (!path) throw new FormError(key);
    let node: FormObject | FormValue[] = root;
    for (let i = 0; i < path.length; i++) {
      const part = path[i] as string;
      const last = i === path.length - 1;
      const nextIsIndex = !last && /^\d*$/.test(path[i + 1] as string);
      const container: Record<string, FormValue> | FormValue[] = node;
      const slot = Array.isArray(container) ? (part === '' ? container.length : Number(part)) : part;
      const holder = container as Record<string | number, FormValue>;
      if (last) {
        holder[slot] = value;
      } else {
        if (holder[slot] === undefined) holder[slot] = nextIsIndex ? [] : {};
        node = holder[slot] as FormObject | FormValue[];
      }
    }
  }
  return root;
}

export class FormError extends Error {
  readonly key: string;
  constructor(key: string) {
    super(`Invalid parameter name: ${key}`);
    this.key = key;
  }
}

/** A form value as text, or undefined. */
export function text(v: FormValue | undefined): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

/** A form object (a nested parameter), or undefined. */
export function obj(v: FormValue | undefined): FormObject | undefined {
  return v && typeof v === 'object' && !Array.isArray(v) ? v : undefined;
}

/** A list parameter's texts (`expand[]`, `expand[0]`...). */
export function texts(v: FormValue | undefined): string[] {
  if (Array.isArray(v)) return v.filter((x): x is string => typeof x === 'string');
  return typeof v === 'string' ? [v] : [];
}

/** The same parameters in a canonical form: what idempotency compares. */
export function canonical(v: FormValue): string {
  if (typeof v === 'string') return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  return `{${Object.keys(v)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${canonical(v[k] as FormValue)}`)
    .join(',')}}`;
}
