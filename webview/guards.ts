// Small structural checks for data from the host: the webview imports the protocol as types only, so zod stays host-side.

export type Rec = Readonly<Record<string, unknown>>;
export type Check = (v: unknown) => boolean;

export function isRec(v: unknown): v is Rec {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export const str =
  (max: number, min = 0): Check =>
  (v) =>
    typeof v === 'string' && v.length <= max && v.length >= min;
export const num: Check = (v) => typeof v === 'number' && Number.isFinite(v);
export const nonNeg: Check = (v) => num(v) && (v as number) >= 0;
export const bool: Check = (v) => typeof v === 'boolean';
export const optional =
  (c: Check): Check =>
  (v) =>
    v === undefined || c(v);
export const nullable =
  (c: Check): Check =>
  (v) =>
    v === null || c(v);
export const arrayOf =
  (c: Check, max: number): Check =>
  (v) =>
    Array.isArray(v) && v.length <= max && v.every(c);

/** One of the keys of `values`; taking a Record makes the compiler insist every member of the union is listed. */
export function oneOf<T extends string>(values: Readonly<Record<T, true>>): Check {
  return (v) => typeof v === 'string' && Object.prototype.hasOwnProperty.call(values, v);
}

/** An object whose listed fields pass their checks (other fields are ignored, like zod's default). */
export function shape(fields: Readonly<Record<string, Check>>): Check {
  return (v) => isRec(v) && Object.entries(fields).every(([k, c]) => c(v[k]));
}

/** An object whose `key` field picks the shape it must have. */
export function union<K extends string>(key: string, shapes: Readonly<Record<K, Readonly<Record<string, Check>>>>): Check {
  const checks = new Map<string, Check>(Object.entries<Readonly<Record<string, Check>>>(shapes).map(([k, s]) => [k, shape(s)]));
  return (v) => {
    if (!isRec(v)) return false;
    const tag = v[key];
    if (typeof tag !== 'string') return false;
    const c = checks.get(tag);
    return c !== undefined && c(v);
  };
}
