// An MCP tool's input schema made acceptable to every provider: an object at the top, local $refs inlined (cycles cut), keywords providers reject removed.

type Json = unknown;
type Obj = Record<string, Json>;

/** How deep refs are inlined; deeper (or cyclic) refs become an open schema with a note. */
const MAX_REF_DEPTH = 6;
/** Keywords some providers refuse in function parameters; they carry no meaning for the model. */
const DROPPED = new Set(['$schema', '$id', '$comment', '$anchor', '$dynamicRef', '$dynamicAnchor']);

function isObj(v: Json): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function lookup(root: Obj, ref: string): Json {
  if (!ref.startsWith('#/')) return undefined;
  let cur: Json = root;
  for (const raw of ref.slice(2).split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (!isObj(cur)) return undefined;
    cur = cur[key];
  }
  return cur;
}

function walk(node: Json, root: Obj, stack: readonly string[]): Json {
  if (Array.isArray(node)) return node.map((n) => walk(n, root, stack));
  if (!isObj(node)) return node;
  const ref = node.$ref;
  if (typeof ref === 'string') {
    const { $ref: _drop, ...rest } = node;
    const target = lookup(root, ref);
    if (target === undefined || stack.includes(ref) || stack.length >= MAX_REF_DEPTH) {
      const why = target === undefined ? `unresolved reference ${ref}` : `recursive reference ${ref}`;
      return { ...walkProps(rest, root, stack), description: typeof rest.description === 'string' ? `${rest.description} (${why})` : `(${why})` };
    }
    const inlined = walk(target, root, [...stack, ref]);
    return isObj(inlined) ? { ...inlined, ...walkProps(rest, root, stack) } : inlined;
  }
  return walkProps(node, root, stack);
}

function walkProps(node: Obj, root: Obj, stack: readonly string[]): Obj {
  const out: Obj = {};
  for (const [k, v] of Object.entries(node)) {
    if (DROPPED.has(k) || k === '$defs' || k === 'definitions') continue;
    out[k] = walk(v, root, stack);
  }
  return out;
}

/** The normalized parameters object; the input is never modified. */
export function normalizeSchema(schema: Json): Obj {
  if (!isObj(schema)) return { type: 'object', properties: {} };
  const out = walk(schema, schema, []);
  const obj: Obj = isObj(out) ? out : {};
  // Providers require an object schema for the arguments; anything else is wrapped as "no known arguments".
  if (obj.type !== undefined && obj.type !== 'object') return { type: 'object', properties: {} };
  return { ...obj, type: 'object', properties: isObj(obj.properties) ? obj.properties : {} };
}
